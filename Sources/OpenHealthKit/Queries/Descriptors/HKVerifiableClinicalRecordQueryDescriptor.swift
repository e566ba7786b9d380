import Foundation

/// The async form of ``HKVerifiableClinicalRecordQuery`` (HealthKit's
/// `HKVerifiableClinicalRecordQueryDescriptor`).
///
/// ```swift
/// let descriptor = HKVerifiableClinicalRecordQueryDescriptor(
///     recordTypes: [.immunization],
///     sourceTypes: [.smartHealthCard],
///     predicate: HKQuery.predicateForVerifiableClinicalRecords(withRelevantDateWithin: lastYear))
/// let records = try await descriptor.result(for: store)
/// ```
public struct HKVerifiableClinicalRecordQueryDescriptor: @unchecked Sendable {
    /// The record types every returned record carries.
    public var recordTypes: [HKVerifiableClinicalRecordCredentialType]
    /// The source types to look in.
    public var sourceTypes: [HKVerifiableClinicalRecordSourceType]
    /// A predicate on the records (e.g. their relevant date).
    public var predicate: NSPredicate?

    /// Creates a descriptor, as HealthKit's `init(recordTypes:sourceTypes:predicate:)`.
    /// - Parameters:
    ///   - recordTypes: The record types every returned record must carry, e.g. `[.immunization]`.
    ///   - sourceTypes: The formats to look in, e.g. `[.smartHealthCard]`.
    ///   - predicate: Limits the records, e.g. by relevant date; nil for all.
    public init(recordTypes: [HKVerifiableClinicalRecordCredentialType], sourceTypes: [HKVerifiableClinicalRecordSourceType],
                predicate: NSPredicate? = nil) {
        self.recordTypes = recordTypes
        self.sourceTypes = sourceTypes
        self.predicate = predicate
    }

    /// Runs the query: asks the person (the store's authorization provider) and returns the
    /// records they chose.
    /// - Throws: `HKError.errorUserCanceled` when they decline.
    public func result(for healthStore: HKHealthStore) async throws -> [HKVerifiableClinicalRecord] {
        try await healthStore.shareVerifiableRecords(recordTypes: recordTypes.map(\.rawValue), sourceTypes: sourceTypes,
                                                     predicate: predicate)
    }
}
