import Foundation
import OpenHealthKit

/// The named values of category types: sleep stages (`asleepDeep`, "Deep sleep"), stand hours,
/// menstrual flow, symptoms' severity… as people type and read them.
public enum CategoryValues {
    /// One value of a category type.
    public struct Value: Sendable, Equatable {
        /// The raw value HealthKit stores.
        public let rawValue: Int
        /// HealthKit's Swift name of the case: `asleepDeep`.
        public let name: String
        /// How the Health app writes it: "Deep sleep".
        public let label: String
    }

    /// "notPresent" → "Not present", "eggWhite" → "Egg white".
    private static func words(_ name: String) -> String {
        var text = ""
        for character in name {
            if character.isUppercase, !text.isEmpty { text.append(" ") }
            text.append(text.isEmpty ? Character(character.uppercased()) : Character(character.lowercased()))
        }
        return text
    }

    /// The Health app's words where they are not the case's name in words, by value enum and case.
    private static let labels: [String: [String: String]] = [
        "HKCategoryValue": ["notApplicable": "Recorded"],
        "HKCategoryValueSleepAnalysis": [
            "inBed": "In bed", "asleepUnspecified": "Asleep", "awake": "Awake", "asleepCore": "Core sleep",
            "asleepDeep": "Deep sleep", "asleepREM": "REM sleep",
        ],
        "HKCategoryValueOvulationTestResult": ["luteinizingHormoneSurge": "LH surge"],
        "HKCategoryValueContraceptive": ["intrauterineDevice": "IUD"],
    ]

    /// Each type's values, built once from OpenHealthKit's table of value enums (the one the
    /// store checks values against), with the labels above.
    private static let byIdentifier: [String: [Value]] = {
        var table: [String: [Value]] = [:]
        for valueEnum in CategoryTypeCatalog.valueEnums {
            let overrides = labels[valueEnum.enumName] ?? [:]
            let values = valueEnum.cases.map { Value(rawValue: $0.rawValue, name: $0.name, label: overrides[$0.name] ?? words($0.name)) }
            for identifier in valueEnum.identifiers { table[identifier.rawValue] = values }
        }
        return table
    }()

    /// The values a category type takes, or nil for a type this table does not know.
    public static func values(for type: HKCategoryType) -> [Value]? {
        byIdentifier[type.identifier]
    }

    /// Whether the type's only value is `notApplicable`: an event or a session, which needs no
    /// value typed.
    public static func isValueless(_ type: HKCategoryType) -> Bool {
        values(for: type).map { $0.count == 1 && $0[0].name == "notApplicable" } ?? false
    }

    /// The value a person typed: a name (`asleepDeep`), a label (`Deep sleep`), in any case,
    /// or the raw number HealthKit stores.
    /// - Throws: ``HealthPresentationError/unknownCategoryValue(_:type:accepted:)`` listing the
    ///   type's value names.
    public static func value(_ text: String, for type: HKCategoryType) throws(HealthPresentationError) -> Int {
        let key = normalized(text)
        let known = values(for: type) ?? []
        if let match = known.first(where: { normalized($0.name) == key || normalized($0.label) == key }) { return match.rawValue }
        if let number = Int(text.trimmingCharacters(in: .whitespaces)), known.isEmpty || known.contains(where: { $0.rawValue == number }) {
            return number
        }
        throw .unknownCategoryValue(text, type: type.displayName, accepted: known.map(\.name))
    }

    /// How the Health app writes a value: "Core sleep"; the raw number for a value the table
    /// does not know.
    public static func label(of rawValue: Int, for type: HKCategoryType) -> String {
        values(for: type)?.first { $0.rawValue == rawValue }?.label ?? "value \(rawValue)"
    }

    /// HealthKit's name of a value: "asleepCore"; nil for a value the table does not know.
    public static func name(of rawValue: Int, for type: HKCategoryType) -> String? {
        values(for: type)?.first { $0.rawValue == rawValue }?.name
    }

    private static func normalized(_ text: String) -> String {
        text.lowercased().filter { $0 != " " && $0 != "-" && $0 != "_" }
    }
}
