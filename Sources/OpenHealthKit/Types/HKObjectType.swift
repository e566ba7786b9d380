import Foundation

/// The abstract superclass of every HealthKit data type (HealthKit's `HKObjectType`).
///
/// Types are compared by identifier: `HKQuantityType(.stepCount) == HKObjectType.quantityType(
/// forIdentifier: .stepCount)`, and they hash the same way, so they work in the `Set`s that
/// `requestAuthorization(toShare:read:)` takes.
open class HKObjectType: NSObject, @unchecked Sendable {
    /// The type's identifier, e.g. `HKQuantityTypeIdentifierStepCount`.
    public let identifier: String

    init(identifier: String) {
        self.identifier = identifier
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKObjectType else { return false }
        return other.identifier == identifier && Swift.type(of: other) == Swift.type(of: self)
    }

    open override var hash: Int { identifier.hashValue }

    open override var description: String { identifier }

    /// Returns the quantity type for an identifier, or nil when OpenHealthKit does not know it.
    public class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
        QuantityTypeCatalog.descriptor(for: identifier) == nil ? nil : HKQuantityType(identifier)
    }

    /// Returns the category type for an identifier, or nil when OpenHealthKit does not know it.
    public class func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
        CategoryTypeCatalog.allowedValues(for: identifier) == nil ? nil : HKCategoryType(identifier)
    }

    /// Returns the characteristic type for an identifier.
    public class func characteristicType(forIdentifier identifier: HKCharacteristicTypeIdentifier) -> HKCharacteristicType? {
        HKCharacteristicType.known.contains(identifier) ? HKCharacteristicType(identifier) : nil
    }

    /// Returns the correlation type for an identifier.
    public class func correlationType(forIdentifier identifier: HKCorrelationTypeIdentifier) -> HKCorrelationType? {
        HKCorrelationType.known.contains(identifier) ? HKCorrelationType(identifier) : nil
    }

    /// The workout type.
    public class func workoutType() -> HKWorkoutType { HKWorkoutType() }

    /// Rebuilds a type from its identifier string, as stored in the database.
    static func type(forIdentifierString identifier: String) -> HKObjectType? {
        if identifier == HKWorkoutTypeIdentifier { return HKWorkoutType() }
        if identifier == HKWorkoutRouteTypeIdentifier { return HKSeriesType.workoutRoute() }
        if let clinical = clinicalMeasurementType(forIdentifierString: identifier) { return clinical }
        if let medication = medicationType(forIdentifierString: identifier) { return medication }
        if identifier == HKDataTypeIdentifierHeartbeatSeries { return HKSeriesType.heartbeat() }
        if identifier == HKStateOfMindTypeIdentifierString { return HKStateOfMindType() }
        if identifier.hasPrefix("HKScoredAssessmentTypeIdentifier") {
            return scoredAssessmentType(forIdentifier: HKScoredAssessmentTypeIdentifier(rawValue: identifier))
        }
        if identifier.hasPrefix("HKQuantityTypeIdentifier") {
            return quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: identifier))
        }
        if identifier.hasPrefix("HKCategoryTypeIdentifier") {
            return categoryType(forIdentifier: HKCategoryTypeIdentifier(rawValue: identifier))
        }
        if identifier.hasPrefix("HKCorrelationTypeIdentifier") {
            return correlationType(forIdentifier: HKCorrelationTypeIdentifier(rawValue: identifier))
        }
        if identifier.hasPrefix("HKClinicalTypeIdentifier") {
            return clinicalType(forIdentifier: HKClinicalTypeIdentifier(rawValue: identifier))
        }
        if identifier == HKVerifiableClinicalRecordType.identifierString { return HKVerifiableClinicalRecordType() }
        if identifier.hasPrefix("HKCharacteristicTypeIdentifier") {
            return characteristicType(forIdentifier: HKCharacteristicTypeIdentifier(rawValue: identifier))
        }
        return nil
    }
}

/// A type of characteristic data (date of birth, biological sex…); read-only for apps.
public final class HKCharacteristicType: HKObjectType, @unchecked Sendable {
    static let known = Set(HKCharacteristicTypeIdentifier.allKnown)

    /// Creates the characteristic type for an identifier.
    public init(_ identifier: HKCharacteristicTypeIdentifier) {
        super.init(identifier: identifier.rawValue)
    }
}

/// The abstract type of every sample type (HealthKit's `HKSampleType`).
open class HKSampleType: HKObjectType, @unchecked Sendable {
    /// Whether samples of this type may last at most `maximumAllowedDuration`.
    public var isMaximumDurationRestricted: Bool { false }
    /// Whether samples of this type must last at least `minimumAllowedDuration`.
    public var isMinimumDurationRestricted: Bool { false }
    /// The longest a sample of this type may last, when ``isMaximumDurationRestricted``. No type
    /// restricts it here, so this is `.infinity` (HealthKit raises an exception for a type that
    /// is not restricted; check ``isMaximumDurationRestricted`` first, as there).
    public var maximumAllowedDuration: TimeInterval { .infinity }
    /// The shortest a sample of this type may last, when ``isMinimumDurationRestricted``. No type
    /// restricts it here, so this is 0 (HealthKit raises an exception for a type that is not
    /// restricted; check ``isMinimumDurationRestricted`` first, as there).
    public var minimumAllowedDuration: TimeInterval { 0 }
    /// Whether the type allows samples that last for a period of time.
    public var allowsRecalibrationForEstimates: Bool { false }
}

/// A type of quantity samples (HealthKit's `HKQuantityType`).
public final class HKQuantityType: HKSampleType, @unchecked Sendable {
    /// How samples of this type combine in statistics.
    public let aggregationStyle: HKQuantityAggregationStyle
    /// The unit values of this type are stored and aggregated in.
    let canonicalUnit: HKUnit

    /// Creates the quantity type for an identifier. Unknown identifiers make a dimensionless
    /// discrete type that the store refuses to save.
    public init(_ identifier: HKQuantityTypeIdentifier) {
        let descriptor = QuantityTypeCatalog.descriptor(for: identifier)
        self.aggregationStyle = descriptor?.aggregationStyle ?? .discreteArithmetic
        self.canonicalUnit = descriptor.flatMap { try? HKUnit.parse($0.canonicalUnitString) } ?? HKUnit.count()
        self.isKnown = descriptor != nil
        super.init(identifier: identifier.rawValue)
    }

    let isKnown: Bool

    /// Whether a unit can express this type's quantities.
    public func `is`(compatibleWith unit: HKUnit) -> Bool {
        canonicalUnit.isCompatible(with: unit)
    }
}

/// A type of category samples (HealthKit's `HKCategoryType`).
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    /// Creates the category type for an identifier.
    public init(_ identifier: HKCategoryTypeIdentifier) {
        super.init(identifier: identifier.rawValue)
    }
}

/// A type of correlation (blood pressure, food).
public final class HKCorrelationType: HKSampleType, @unchecked Sendable {
    static let known: Set<HKCorrelationTypeIdentifier> = [.bloodPressure, .food]

    /// Creates the correlation type for an identifier.
    public init(_ identifier: HKCorrelationTypeIdentifier) {
        super.init(identifier: identifier.rawValue)
    }

    /// The sample types a correlation of this type may contain: systolic and diastolic blood
    /// pressure, or the dietary types for food. HealthKit authorizes correlations through
    /// these types; the correlation types themselves cannot be requested.
    var memberTypes: Set<String> {
        switch identifier {
        case HKCorrelationTypeIdentifier.bloodPressure.rawValue:
            return [HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue,
                    HKQuantityTypeIdentifier.bloodPressureDiastolic.rawValue]
        default:
            return Self.dietaryTypes
        }
    }

    private static let dietaryTypes = Set(HKQuantityTypeIdentifier.allKnown.map(\.rawValue)
        .filter { $0.hasPrefix("HKQuantityTypeIdentifierDietary") })
}

/// The workout type.
public final class HKWorkoutType: HKSampleType, @unchecked Sendable {
    /// The workout type (there is exactly one).
    public init() {
        super.init(identifier: HKWorkoutTypeIdentifier)
    }
}
