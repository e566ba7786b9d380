import Foundation

extension HKQuantityType {
    /// The unit people read this type in, which is not always the storage unit: heart rate is
    /// stored in count/s but shown in count/min (OpenHealthKit API; the CLI uses it, and
    /// `preferredUnits(for:)` starts from it).
    public var defaultDisplayUnit: HKUnit {
        switch identifier {
        case HKQuantityTypeIdentifier.heartRate.rawValue, HKQuantityTypeIdentifier.respiratoryRate.rawValue:
            return HKUnit.count().unitDivided(by: .minute())
        case HKQuantityTypeIdentifier.dietaryWater.rawValue:
            return HKUnit.literUnit(with: .milli)
        default:
            return canonicalUnit
        }
    }
}

extension HKHealthStore {
    /// The units to show quantities in: the unit the owner chose with ``setPreferredUnit(_:for:)``
    /// (stored, sealed, in the store), else the metric defaults of ``HKQuantityType/defaultDisplayUnit``
    /// with pounds, miles and °F for a US locale.
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>) async throws -> [HKQuantityType: HKUnit] {
        let imperial = Locale.current.measurementSystem == .us
        // Every stored choice in one read (not one per type: a page asks for a hundred types).
        let stored = try await engine.databaseAsync().characteristics(withPrefix: Self.preferredUnitPrefix)
        var units: [HKQuantityType: HKUnit] = [:]
        for type in quantityTypes {
            if let chosen = Self.storedPreferredUnit(for: type, in: stored) {
                units[type] = chosen
                continue
            }
            var unit = type.defaultDisplayUnit
            if imperial {
                switch unit {
                case .gramUnit(with: .kilo): unit = .pound()
                case .meter() where type.identifier == HKQuantityTypeIdentifier.height.rawValue: unit = .inch()
                case .meter(): unit = .mile()
                case .degreeCelsius(): unit = .degreeFahrenheit()
                default: break
                }
            }
            units[type] = unit
        }
        return units
    }

    /// Callback form of `preferredUnits(for:)`.
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>,
                               completion: @escaping @Sendable ([HKQuantityType: HKUnit], (any Error)?) -> Void) {
        Task {
            do {
                completion(try await preferredUnits(for: quantityTypes), nil)
            } catch {
                completion([:], error)
            }
        }
    }

    // MARK: Owner API (OpenHealthKit only)

    /// Stores the unit quantities of `quantityType` are shown in, for every app that asks
    /// ``preferredUnits(for:)`` (HealthKit keeps this choice in the Health app's settings; here
    /// the owner sets it, and it is kept sealed in the store), and posts
    /// `HKUserPreferencesDidChange` with this store as its object. `nil` goes back to the default.
    /// - Throws: `errorAuthorizationDenied` when the store is not opened as its owner;
    ///   `errorInvalidArgument` when the unit does not measure the type (pounds for steps).
    public func setPreferredUnit(_ unit: HKUnit?, for quantityType: HKQuantityType) throws {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may set preferred units")
        }
        if let unit, !quantityType.is(compatibleWith: unit) {
            throw HKError(.errorInvalidArgument, "the unit \(unit.unitString) does not measure \(quantityType.identifier)")
        }
        try engine.database().setCharacteristic(Self.preferredUnitKey(quantityType), unit.map { Data($0.unitString.utf8) })
        NotificationCenter.default.post(name: .HKUserPreferencesDidChange, object: self)
    }

    /// The key of a preferred unit among the sealed owner settings (beside the characteristics).
    private static func preferredUnitKey(_ type: HKQuantityType) -> String {
        preferredUnitPrefix + type.identifier
    }

    /// What every preferred unit's key starts with.
    private static let preferredUnitPrefix = "preferredUnit:"

    /// The stored choice for a type among the stored choices; one that no longer parses or fits is ignored.
    private static func storedPreferredUnit(for type: HKQuantityType, in stored: [String: Data]) -> HKUnit? {
        guard let data = stored[preferredUnitKey(type)],
              let unit = try? HKUnit.parse(String(decoding: data, as: UTF8.self)), type.is(compatibleWith: unit) else {
            return nil
        }
        return unit
    }
}

extension NSNotification.Name {
    /// Posted when the preferred units change, with the health store that changed them as the
    /// notification's object (HealthKit's `HKUserPreferencesDidChangeNotification`). Observe it
    /// with the store you use as the object, as HealthKit advises. Here the owner's
    /// `setPreferredUnit(_:for:)` posts it, in the process that set the unit.
    public static let HKUserPreferencesDidChange = NSNotification.Name("HKUserPreferencesDidChangeNotification")
}
