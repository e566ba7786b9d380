import Foundation

/// Identifies a correlation type: a sample that groups other samples, such as a blood pressure reading.
///
/// Mirrors HealthKit's `HKCorrelationTypeIdentifier` string enum; the raw value is the
/// Objective-C constant's string, e.g. `"HKCorrelationTypeIdentifierBloodPressure"`.
public struct HKCorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable, Codable {
    /// The identifier string, exactly as HealthKit spells it.
    public let rawValue: String

    /// Creates an identifier from its raw string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates an identifier from its raw string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HKCorrelationTypeIdentifier {
    /// Blood pressure: one systolic and one diastolic quantity sample.
    public static let bloodPressure = HKCorrelationTypeIdentifier(rawValue: "HKCorrelationTypeIdentifierBloodPressure")

    /// Food: dietary quantity samples eaten together.
    public static let food = HKCorrelationTypeIdentifier(rawValue: "HKCorrelationTypeIdentifierFood")
}

extension HKCorrelationTypeIdentifier {
    /// Every correlation identifier declared above.
    static let allKnown: [HKCorrelationTypeIdentifier] = [.bloodPressure, .food]
}
