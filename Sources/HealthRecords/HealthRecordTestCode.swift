import FHIRCore
import Foundation
import OpenHealthKit

/// The test a lab result measures (its FHIR `code`), kept in the record's metadata when it is
/// imported, as an indexed value: the results of one test are found with
/// `HKQuery.predicateForObjects(withMetadataKey:allowedValues:)` without reading every lab result.
public enum HealthRecordTestCode {
    /// The metadata key of a lab result's test code (``code(in:)``; empty when it has none).
    public static let key = "OpenHealthKitTestCode"
    /// The name of the one-time pass (``completeStoredRecords(in:)``) that gives lab results stored
    /// before the import kept their test code the same metadata from their FHIR JSON.
    public static let storedRecordsPass = "health-record-test-codes"
    /// How many records the pass changes per transaction.
    static let batchSize = 500

    /// A test's key: its first coding that has a code, as `system|code` (an absent system is
    /// empty), else its code's text as `text|TEXT`; nil when the resource has neither.
    /// - Parameter resource: the FHIR resource (an Observation).
    public static func code(in resource: JSONObject) -> String? {
        guard let code = resource["code"]?.objectValue else { return nil }
        for coding in code["coding"]?.arrayValue ?? [] {
            guard let coding = coding.objectValue, let value = coding["code"]?.stringValue else { continue }
            return "\(coding["system"]?.stringValue ?? "")|\(value)"
        }
        return code["text"]?.stringValue.map { "text|\($0)" }
    }

    /// ``code(in:)`` of a resource's JSON; nil when it cannot be read or has no code.
    /// - Parameter json: the FHIR resource's JSON.
    public static func code(json: Data) -> String? {
        (try? JSONParser.parse(json))?.objectValue.flatMap(code(in:))
    }

    /// The metadata a record of `clinicalType` keeps of its test: for a lab result, its code (empty
    /// when it has none, so that every lab result is keyed); nothing for other records.
    /// - Parameters:
    ///   - clinicalType: the record's clinical type identifier.
    ///   - resource: its FHIR resource.
    public static func metadata(_ clinicalType: HKClinicalTypeIdentifier, resource: JSONObject) -> [String: Any] {
        clinicalType == .labResultRecord ? [key: code(in: resource) ?? ""] : [:]
    }

    /// Gives every stored lab result kept without its test code (stored before the import kept
    /// it) the code from its FHIR JSON. Runs once per store: the store then remembers it ran
    /// (``storedRecordsPass``), and a later call costs one lookup. Records change in place (the
    /// same UUID, dates, source and resource), 500 to a transaction; a pass interrupted part way
    /// goes on from where it stopped.
    /// - Parameter store: the store, opened as its owner.
    /// - Returns: how many lab results were given their code.
    @discardableResult
    public static func completeStoredRecords(in store: HKHealthStore) async throws -> Int {
        try await StoredRecordPass.run(storedRecordsPass, missing: key, of: [HKClinicalType(.labResultRecord)], batchSize: batchSize, in: store) { records in
            var additions: [UUID: [String: Any]] = [:]
            for record in records {
                additions[record.uuid] = [key: record.fhirResource.flatMap { code(json: $0.data) } ?? ""]
            }
            return additions
        }
    }
}
