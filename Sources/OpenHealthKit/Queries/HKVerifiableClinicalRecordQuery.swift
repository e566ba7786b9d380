import Foundation

/// Asks for verifiable clinical records (SMART Health Cards), record by record, once
/// (HealthKit's `HKVerifiableClinicalRecordQuery`).
///
/// Each execution puts the matching records to the store's ``AuthorizationProvider``
/// (HealthKit's "Share Once" sheet) and returns exactly the records chosen; nothing lasting is
/// granted. A record matches when it carries every requested record type, comes from one of the
/// source types and satisfies the predicate. Declining fails with `HKError.errorUserCanceled`.
public final class HKVerifiableClinicalRecordQuery: HKQuery, @unchecked Sendable {
    /// The record types every returned record carries (SMART Health Cards type URIs).
    public let recordTypes: [String]
    /// The source types to look in.
    public let sourceTypes: [HKVerifiableClinicalRecordSourceType]
    private let resultsHandler: @Sendable (HKVerifiableClinicalRecordQuery, [HKVerifiableClinicalRecord]?, (any Error)?) -> Void

    /// Creates a query for SMART Health Cards, as HealthKit's `init(recordTypes:predicate:resultsHandler:)`.
    public convenience init(recordTypes: [String], predicate: NSPredicate?,
                            resultsHandler: @escaping @Sendable (HKVerifiableClinicalRecordQuery, [HKVerifiableClinicalRecord]?,
                                                                 (any Error)?) -> Void) {
        self.init(recordTypes: recordTypes, sourceTypes: [.smartHealthCard], predicate: predicate, resultsHandler: resultsHandler)
    }

    /// Creates a query, as HealthKit's `init(recordTypes:sourceTypes:predicate:resultsHandler:)`.
    public init(recordTypes: [String], sourceTypes: [HKVerifiableClinicalRecordSourceType], predicate: NSPredicate?,
                resultsHandler: @escaping @Sendable (HKVerifiableClinicalRecordQuery, [HKVerifiableClinicalRecord]?, (any Error)?) -> Void) {
        self.recordTypes = recordTypes
        self.sourceTypes = sourceTypes
        self.resultsHandler = resultsHandler
        super.init(objectType: nil, predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let records = try await store.shareVerifiableRecords(recordTypes: recordTypes, sourceTypes: sourceTypes, predicate: predicate)
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, records, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, nil, error)
        }
    }
}
