import AppleHealthExport
import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards
import Synchronization

/// Stores an Apple Health export's clinical records (`clinical-records/*.json`) through
/// HealthRecords' `HealthRecordImporter`, exactly as `health records import` stores a resource:
/// validated, filed by clinical type, and replacing the record of the same provider, resource
/// type and id, so that importing the export again duplicates nothing: a record already stored
/// with the same content is reported as already in the store, not stored again.
///
/// The FHIR version is the `ClinicalRecord` element's `fhirVersion` when the export has one;
/// otherwise the resource is read as R4, then as DSTU2 (Apple's Argonaut records) if R4 refuses it.
/// The provider is the element's `sourceName` ("Health Records" without one).
///
/// A file whose Patient is not the store's owner (`HealthRecordPerson`) is not stored unless
/// `allowOtherPerson`; the refusals, naming both people, are in ``otherPersonRefusals``.
public struct AppleHealthClinicalRecordImporter: AppleHealthClinicalRecordImporting {
    /// The store the records go to (opened as its owner).
    public let store: HKHealthStore
    /// The time of the import: the date of a record whose resource has none.
    public let now: Date
    /// Whether a file whose Patient is another person than the store's owner is stored.
    public let allowOtherPerson: Bool
    private let refusals = RefusalLog()

    /// Creates an importer for `store`.
    /// - Parameters:
    ///   - store: the store (opened as its owner).
    ///   - now: the time of the import.
    ///   - allowOtherPerson: whether records of another person than the owner are stored.
    public init(store: HKHealthStore, now: Date = Date(), allowOtherPerson: Bool = false) {
        self.store = store
        self.now = now
        self.allowOtherPerson = allowOtherPerson
    }

    /// The files refused because their Patient is not the store's owner: `file: reason`, the
    /// reason naming both people.
    public var otherPersonRefusals: [String] { refusals.lines.withLock { $0 } }

    /// Imports one file's resource.
    public func importClinicalRecord(_ bytes: [UInt8], file: AppleHealthClinicalRecordFile) async throws
        -> (stored: [String], alreadyStored: [String], notStored: [String]) {
        // Exports hold FHIR resources, never cards: no issuer is trusted.
        let verifier = SHCVerifier(resolver: StaticKeyResolver([:]), now: now)
        let versions: [HKFHIRVersion]
        if let text = file.fhirVersion, let version = try? HKFHIRVersion(fromVersionString: text) {
            versions = [version]
        } else {
            versions = [.primaryR4(), .primaryDSTU2()]
        }
        var last = HealthRecordImportReport()
        for version in versions {
            let importer = HealthRecordImporter(store: store, verifier: verifier,
                                                options: .init(fhirVersion: version, sourceName: file.sourceName, now: now,
                                                               allowOtherPerson: allowOtherPerson))
            var report = HealthRecordImportReport()
            try await importer.importInput(bytes, named: file.name, into: &report)
            last = report
            if !report.otherPeople.isEmpty {
                let reasons = report.refusals.flatMap(\.reasons).map { "\(file.name): \($0)" }
                refusals.lines.withLock { $0 += reasons }
                return ([], [], ["the patient is not the store's owner"])
            }
            if !report.stored.isEmpty || !report.alreadyStored.isEmpty || report.refusals.isEmpty { break }
        }
        var notStored: [String] = []
        if !last.unreadable.isEmpty { notStored.append("unreadable resource") }
        if !last.refusals.isEmpty { notStored.append("invalid resource") }
        for (resourceType, count) in last.skipped {
            notStored += Array(repeating: "\(resourceType) is not a clinical record", count: count)
        }
        let alreadyStored = last.alreadyStored.sorted { $0.key < $1.key }.flatMap { Array(repeating: $0.key, count: $0.value) }
        return (last.stored.map { $0.sampleType.identifier }, alreadyStored, notStored)
    }
}

/// The refusals an importer met, shared by its copies.
private final class RefusalLog: Sendable {
    let lines = Mutex<[String]>([])
}
