import CommonSupport
import Foundation

extension HKHealthStore {
    private func characteristicValue(_ identifier: HKCharacteristicTypeIdentifier) throws -> Data? {
        guard try engine.readScope(for: identifier.rawValue) == .everything else { return nil }
        return try engine.database().characteristic(identifier.rawValue)
    }

    private func characteristicInteger(_ identifier: HKCharacteristicTypeIdentifier) throws -> Int {
        guard let data = try characteristicValue(identifier), let text = String(data: data, encoding: .utf8), let value = Int(text) else {
            return 0
        }
        return value
    }

    /// The user's biological sex; `.notSet` when unknown or when reading is not authorized.
    public func biologicalSex() throws -> HKBiologicalSexObject {
        HKBiologicalSexObject(biologicalSex: HKBiologicalSex(rawValue: try characteristicInteger(.biologicalSex)) ?? .notSet)
    }

    /// The user's blood type; `.notSet` when unknown or not authorized.
    public func bloodType() throws -> HKBloodTypeObject {
        HKBloodTypeObject(bloodType: HKBloodType(rawValue: try characteristicInteger(.bloodType)) ?? .notSet)
    }

    /// The user's Fitzpatrick skin type; `.notSet` when unknown or not authorized.
    public func fitzpatrickSkinType() throws -> HKFitzpatrickSkinTypeObject {
        HKFitzpatrickSkinTypeObject(skinType: HKFitzpatrickSkinType(rawValue: try characteristicInteger(.fitzpatrickSkinType)) ?? .notSet)
    }

    /// Whether the user uses a wheelchair; `.notSet` when unknown or not authorized.
    public func wheelchairUse() throws -> HKWheelchairUseObject {
        HKWheelchairUseObject(wheelchairUse: HKWheelchairUse(rawValue: try characteristicInteger(.wheelchairUse)) ?? .notSet)
    }

    /// The user's activity move mode; `.activeEnergy` when unknown or not authorized.
    public func activityMoveMode() throws -> HKActivityMoveModeObject {
        HKActivityMoveModeObject(activityMoveMode: HKActivityMoveMode(rawValue: try characteristicInteger(.activityMoveMode)) ?? .activeEnergy)
    }

    /// The user's date of birth (calendar, year, month, day).
    /// - Throws: `HKError.errorNoData` when it is not set or reading is not authorized (the
    ///   two are indistinguishable, as in HealthKit).
    public func dateOfBirthComponents() throws -> DateComponents {
        guard let data = try characteristicValue(.dateOfBirth), let text = String(data: data, encoding: .utf8),
              let components = Self.dateOfBirth(fromText: text) else {
            throw HKError(.errorNoData, "no date of birth")
        }
        return components
    }

    /// The user's date of birth as the start of that day in the current time zone (HealthKit's
    /// `dateOfBirth()`, iOS 8, deprecated in iOS 10 for ``dateOfBirthComponents()``).
    /// - Throws: `HKError.errorNoData` when it is not set or reading is not authorized.
    public func dateOfBirth() throws -> Date {
        let components = try dateOfBirthComponents()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        guard let date = calendar.date(from: DateComponents(year: components.year, month: components.month, day: components.day)) else {
            throw HKError(.errorNoData, "no date of birth")
        }
        return date
    }

    /// The components of a stored date of birth (`YYYY-MM-DD`); nil when it is not one.
    static func dateOfBirth(fromText text: String) -> DateComponents? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var components = DateComponents(calendar: Calendar(identifier: .gregorian), year: parts[0], month: parts[1], day: parts[2])
        components.timeZone = nil
        return components
    }

    // MARK: Owner API (OpenHealthKit only)

    private func setCharacteristic(_ identifier: HKCharacteristicTypeIdentifier, _ text: String?) throws {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may set characteristics")
        }
        try engine.database().setCharacteristic(identifier.rawValue, text.map { Data($0.utf8) })
    }

    /// Sets the biological sex. Owner only: apps read characteristics, people set them.
    public func setBiologicalSex(_ value: HKBiologicalSex) throws {
        try setCharacteristic(.biologicalSex, value == .notSet ? nil : String(value.rawValue))
    }

    /// Sets the blood type (owner only).
    public func setBloodType(_ value: HKBloodType) throws {
        try setCharacteristic(.bloodType, value == .notSet ? nil : String(value.rawValue))
    }

    /// Sets the Fitzpatrick skin type (owner only).
    public func setFitzpatrickSkinType(_ value: HKFitzpatrickSkinType) throws {
        try setCharacteristic(.fitzpatrickSkinType, value == .notSet ? nil : String(value.rawValue))
    }

    /// Sets wheelchair use (owner only).
    public func setWheelchairUse(_ value: HKWheelchairUse) throws {
        try setCharacteristic(.wheelchairUse, value == .notSet ? nil : String(value.rawValue))
    }

    /// Sets the activity move mode (owner only).
    public func setActivityMoveMode(_ value: HKActivityMoveMode) throws {
        try setCharacteristic(.activityMoveMode, String(value.rawValue))
    }

    /// Sets the date of birth from year, month and day components; nil clears it (owner only).
    /// - Throws: `errorInvalidArgument` when the components are not a valid calendar date, or a date after today.
    public func setDateOfBirth(_ components: DateComponents?) throws {
        guard let components else { return try setCharacteristic(.dateOfBirth, nil) }
        try setCharacteristic(.dateOfBirth, Self.dateOfBirthText(components))
    }

    /// The stored text of a date of birth (`YYYY-MM-DD`).
    /// - Throws: `errorInvalidArgument` when the components are not a valid calendar date, or a date after today.
    static func dateOfBirthText(_ components: DateComponents) throws -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let year = components.year, let month = components.month, let day = components.day,
              (1...12).contains(month), (1...31).contains(day), (1800...3000).contains(year),
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: year, month: month, day: day) else {
            throw HKError(.errorInvalidArgument, "a date of birth needs a valid year, month and day")
        }
        // The Health app offers no date after today; a day of slack covers every time zone's today.
        guard date <= Date().addingTimeInterval(86_400) else {
            throw HKError(.errorInvalidArgument, "a date of birth cannot be in the future")
        }
        return ISODateText.string(year: year, month: month, day: day)
    }
}
