import CommonSupport
import Foundation
import OpenHealthKit
import Synchronization

/// Imports an Apple Health export (`export.zip` or its `export.xml`, as the Health app writes
/// them) into a store.
///
/// The file is read as a stream, one top-level element at a time, so memory stays bounded
/// whatever its size; a zip archive's `export.xml` is inflated as it is read, never extracted.
/// `Record` elements become quantity or category samples, `Correlation` elements correlations
/// with their member records (each member stored once, though Apple also lists it as a
/// top-level record), `Workout` elements workouts with their events and totals, and the `Me`
/// element the owner's characteristics. Each sample keeps the source (name and version) and
/// device the export names, its metadata, and its dates with the offsets they were written with.
/// The files of `clinical-records/` go to a ``AppleHealthClinicalRecordImporting`` when one is given.
///
/// Samples are saved in batches, each applied whole or not at all; while the import runs, batches share transactions
/// (``bulkWrite``, `HKHealthStore.withBulkWrite(_:_:)`), so that the store's indexes are written out once per
/// transaction rather than once per batch. Every sample carries a sync
/// identifier derived from its content (unless the export gave it one), so running the same
/// import again stores nothing twice and an interrupted import resumes where it stopped. Plain
/// records are looked up by that identifier before they are converted, so the part of an export
/// an earlier import stored costs little more than reading it; runs of them an earlier import found
/// all stored are recognised whole, without a lookup (`docs/apple-health-import.md`).
/// Elements the importer does not understand are counted in the report, never dropped silently.
public struct AppleHealthImporter: Sendable {
    /// Samples per batch: each batch is saved whole or not at all (batches share transactions while the import runs,
    /// ``bulkWrite``). The batch being read and the one being saved are in memory.
    public var batchSize: Int
    /// What a zip archive's entries may inflate to.
    public var archiveLimits: ArchiveLimits
    /// Where the export's clinical records go; nil counts them as not imported.
    public var clinicalRecords: (any AppleHealthClinicalRecordImporting)?
    /// The person the export must be of (one person per store): the store owner's date of birth
    /// (`YYYY-MM-DD`) and how to name the owner. An export whose `Me` element gives another date
    /// of birth stops the import there, with ``AppleHealthExportError/Kind/otherPerson`` (Apple
    /// writes `Me` before any sample). Nil imports any export.
    public var expectedPerson: (dateOfBirth: String, owner: String)?
    /// Whether the characteristics the store already has are the owner's and kept: true when the
    /// store's profile names a person. `Me` then only fills the characteristics that are not set,
    /// unless its date of birth is the one ``expectedPerson`` gives (the owner's own export); an
    /// export of another person (imported with the check skipped) never changes the owner's.
    public var keepsOwnerCharacteristics = false

    /// How the store's writer works during the import (`HKHealthStore.BulkWrite`): nil leaves it as it is.
    public var bulkWrite: HKHealthStore.BulkWrite? = HKHealthStore.BulkWrite()

    /// The prefix of the sync identifiers the importer gives samples.
    public static let syncIdentifierPrefix = "apple-health-export:"
    /// The store's name for the runs of records this importer keeps (``RecordRun``).
    static let runDomain = "apple-health-export"

    /// Creates an importer.
    public init(batchSize: Int = 2_500, archiveLimits: ArchiveLimits = ArchiveLimits(),
                clinicalRecords: (any AppleHealthClinicalRecordImporting)? = nil) {
        self.batchSize = max(1, batchSize)
        self.archiveLimits = archiveLimits
        self.clinicalRecords = clinicalRecords
    }

    /// The source an export's `sourceName` is stored under: exports name apps, not bundle
    /// identifiers, so the bundle identifier is derived from the name.
    public static func source(named name: String) -> HKSource {
        HKSource(name: name, bundleIdentifier: "apple-health-export." + name)
    }

    /// Imports the export at `url` into `store`, which must be opened as its owner.
    /// - Parameters:
    ///   - url: `export.zip` (recognised by its first bytes, whatever its name) or `export.xml`
    ///     (its `clinical-records` folder is read from beside it).
    ///   - store: The store, opened as its owner.
    ///   - progress: Called after each saved batch, and after each run of records found
    ///     already stored, with the report so far and how much of export.xml was read.
    /// - Returns: what was imported and what was skipped.
    /// - Throws: ``AppleHealthExportError`` for a file that is not a well-formed export or an
    ///   archive the limits refuse (the batch being read is not saved; earlier batches stay, and
    ///   running the import again resumes), or the store's error.
    public func importExport(at url: URL, into store: HKHealthStore,
                             progress: @escaping @Sendable (AppleHealthImportProgress) -> Void = { _ in }) async throws -> AppleHealthImportReport {
        guard let bulkWrite else { return try await importAll(at: url, into: store, progress: progress) }
        return try await store.withBulkWrite(bulkWrite) { try await importAll(at: url, into: store, progress: progress) }
    }

    private func importAll(at url: URL, into store: HKHealthStore,
                           progress: @escaping @Sendable (AppleHealthImportProgress) -> Void) async throws -> AppleHealthImportReport {
        let limits = archiveLimits
        let batchSize = batchSize
        let expectedPerson = expectedPerson
        let keepsOwnerCharacteristics = keepsOwnerCharacteristics
        // The saves' tasks are created on the Dispatch thread below, which runs in no task: they save as this task's bulk
        // write's own (sharing its transactions) through this token.
        let bulkWriteOwner = store.currentBulkWriteOwner
        // Records are looked up before they are converted only in a store that may hold some (a re-import, a resumed one).
        // (A store that cannot say, such as one not opened as its owner, is looked up as before: its error comes later.)
        let looksUpStoredRecords = (try? await store.holdsSamplesWithSyncIdentifiers()) ?? true
        // The runs of records earlier imports found all stored (``RecordRun``); none when the store cannot say (its error
        // comes later).
        let storedRuns = try? await store.storedImportRuns(domain: Self.runDomain)
        // The archive's central directory and the XML reader are synchronous: they run on a Dispatch thread (outside Swift's
        // cooperative pool), which waits for each batch's save.
        let (container, xmlReport, clinicalElements, storedRunKeys) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let container = try ExportContainer(url: url, limits: limits)
                    var run = ImportRun(store: store, batchSize: batchSize, totalBytes: container.exportSize, progress: progress)
                    run.expectedPerson = expectedPerson
                    run.keepsOwnerCharacteristics = keepsOwnerCharacteristics
                    run.bulkWriteOwner = bulkWriteOwner
                    run.looksUpStoredRecords = looksUpStoredRecords
                    run.storedRuns = storedRuns
                    run.container = container
                    let (report, clinicalElements, storedRunKeys) = try run.read(try Self.openExport(container))
                    continuation.resume(returning: (container, report, clinicalElements, storedRunKeys))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        // Kept for the next import (in place of those read above), unless a stored sample was deleted or changed meanwhile
        // or a transaction of the import was lost. Only a shortcut for the next import: the samples are stored whether or
        // not it is kept, so a failure to keep it does not fail the import (a store failing to write fails the commit).
        if let storedRuns { _ = try? await store.recordImportRuns(storedRunKeys, as: storedRuns) }
        var report = xmlReport
        for (reason, count) in container.skipped { report.skipped[reason, default: 0] += count }
        try await importClinicalRecords(container, described: clinicalElements, into: &report)
        try await importElectrocardiograms(container, into: store, report: &report)
        return report
    }

    /// export.xml as the parser reads it, once its prolog was read and checked (``ExportProlog``).
    private static func openExport(_ container: ExportContainer) throws(AppleHealthExportError) -> PrologStrippedStream {
        try PrologStrippedStream.open(try container.openExport())
    }

    /// Hands each file of `clinical-records/` to ``clinicalRecords``, with what the export's
    /// `ClinicalRecord` elements said about it.
    private func importClinicalRecords(_ container: ExportContainer, described: [String: AppleHealthClinicalRecordFile],
                                       into report: inout AppleHealthImportReport) async throws {
        var described = described
        for name in container.clinicalRecordFiles {
            let file = described.removeValue(forKey: name) ?? AppleHealthClinicalRecordFile(name: name)
            guard let clinicalRecords else {
                report.skip("clinical record (no clinical-record importer)")
                continue
            }
            // Read (and inflated) on a Dispatch thread: file work blocks.
            let bytes = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try container.read(folder: "clinical-records", name: name) })
                }
            }
            let outcome = try await clinicalRecords.importClinicalRecord(bytes, file: file)
            for type in outcome.stored { report.imported[type, default: 0] += 1 }
            for type in outcome.alreadyStored { report.alreadyStored[type, default: 0] += 1 }
            for reason in outcome.notStored { report.skip("clinical record not stored: \(ImportRun.label(reason))") }
        }
        if !described.isEmpty { report.skipped["ClinicalRecord without its resource file", default: 0] += described.count }
    }
}

/// A sample read from the export and the source revision it is saved under.
private typealias Converted = (sample: HKSample, revision: HKSourceRevision)

/// A record's `type` as text and as the quantity or category type it names (``ImportRun/recordType(of:)``).
private struct RecordType {
    let identifier: String
    let quantityType: HKQuantityType?
    let categoryType: HKCategoryType?
    /// Whether a correlation may hold records of the type (``ImportRun/memberTypes``).
    let isMember: Bool
}

/// One import: the batch being filled and the report so far.
private struct ImportRun {
    let store: HKHealthStore
    let batchSize: Int
    let progress: @Sendable (AppleHealthImportProgress) -> Void
    var report = AppleHealthImportReport()
    var objects: [HKObject] = []
    var revisions: [HKSourceRevision] = []
    /// The sync hashes the store's lookup computed for the batch's objects (nil for the others), so that the save does
    /// not compute them again.
    var knownSyncHashes: [HKHealthStore.KnownSyncHash?] = []
    var characteristics: [String: String]?
    /// The person the export must be of (``AppleHealthImporter/expectedPerson``).
    var expectedPerson: (dateOfBirth: String, owner: String)?
    /// Whether set characteristics are kept (``AppleHealthImporter/keepsOwnerCharacteristics``).
    var keepsOwnerCharacteristics = false
    /// Whether `Me` gave the expected person's date of birth: the owner's own export.
    var meIsOwner = false
    var revisionCache: [String: HKSourceRevision] = [:]
    /// Devices by the text the export describes them with (most records repeat a few devices).
    var deviceCache: [String: HKDevice?] = [:]
    /// Bundle identifiers by source name, for the store lookup of unchecked records.
    var bundleIdentifiers: [String: String] = [:]
    /// Fronts of the caches above by the attributes' bytes (no string made or hashed for a source, device or type
    /// seen recently): ``sourceRevision(of:)``, ``device(of:)``, the lookup's bundle identifiers and record types.
    var revisionsByBytes = AttributeValueCache<HKSourceRevision>(["sourceName", "sourceVersion", "device"])
    var devicesByBytes = AttributeValueCache<HKDevice?>(["device"])
    var bundleIdentifiersByBytes = AttributeValueCache<String?>(["sourceName"])
    var typesByBytes = AttributeValueCache<RecordType?>(["type"], capacity: 64)
    /// A record's unit as `HKUnit.parse` reads its `unit` (nil when absent or unreadable).
    var unitsByBytes = AttributeValueCache<HKUnit?>(["unit"], capacity: 64)
    /// Keys of the members of the correlations read so far: their top-level twins are skipped.
    var memberKeys = Set<ContentKey>()
    /// Top-level records of the types a correlation may hold, held back until the whole file
    /// was read: Apple writes each correlation member twice, first as a top-level record and
    /// later inside its correlation, and only the correlation's copy is stored. Held records
    /// that no correlation claims are saved at the end. At most ``maximumHeld`` are held (later
    /// ones are saved at once, and counted if a correlation then claims them), so the export is
    /// read once, in bounded memory.
    var held: [(key: ContentKey, converted: Converted)] = []
    var heldKeys = Set<ContentKey>()
    /// Whether a possible correlation member was saved at once because ``held`` was full.
    var heldOverflowed = false
    static let maximumHeld = 100_000
    static let maximumMemberKeys = 1_000_000
    /// The types a correlation may hold: blood pressure, and the dietary types of food.
    static let memberTypes: Set<String> = Set(HKObjectType.allSampleTypes.map(\.identifier).filter {
        $0.hasPrefix("HKQuantityTypeIdentifierDietary")
    }).union([HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue, HKQuantityTypeIdentifier.bloodPressureDiastolic.rawValue])
    let totalBytes: UInt64?
    var stream: PrologStrippedStream?
    /// Activity summaries waiting for the batch's commit.
    var summaries: [HKActivitySummary] = []
    /// Where activity summaries are recorded: the export names no source for them.
    static let activityRevision = HKSourceRevision(source: AppleHealthImporter.source(named: "Health"), version: nil)
    /// Clinical record files as the `ClinicalRecord` elements describe them, by file name.
    var clinicalRecordFiles: [String: AppleHealthClinicalRecordFile] = [:]
    /// Where the workouts' GPX route files are read from.
    var container: ExportContainer?
    /// The locations of the routes in the batch: they count towards the batch size, so a
    /// batch's memory stays bounded however long its routes are.
    var pendingLocations = 0
    /// Top-level records of the run being read (``recordRun``) not yet converted, with their content digests: looked up in
    /// the store by their sync identifiers once the run ends, so that those an earlier import stored are counted as already
    /// stored without being converted (a re-import of an unchanged export costs little more than reading it). Any other
    /// element ends the run and converts it first, so records are handled in the file's order.
    var unchecked: [(element: ExportElement, digest: [UInt8])] = []
    /// Whether plain records are looked up in the store before they are converted: not when it held no sample with a
    /// sync identifier as the import began (a first import), where every look-up would find nothing; the save still
    /// finds a record the import itself stored earlier.
    var looksUpStoredRecords = true
    /// The runs of records earlier imports found all stored (``RecordRun``): a run read again is counted as already
    /// stored without a lookup. Nil: none recognised, and none kept for the next import.
    var storedRuns: HKHealthStore.StoredImportRuns?
    /// The run of plain records being read (the top-level records ``checkableType(of:)`` accepts, in the file's order),
    /// and what became of its records converted so far (a first import converts them at once).
    var recordRun = RecordRun()
    var recordRunOutcome = RunOutcome()
    /// Runs read whole whose records went into batches not yet reported, oldest first (so by their last batch): each is
    /// kept once its last batch is reported, unless one of its batches had a sample refused.
    var runsAwaitingBatches: [(key: Data, outcome: RunOutcome)] = []
    /// The keyed fingerprints of the runs whose records are all stored, for the store to keep once the import ends.
    var storedRunKeys: [Data] = []
    /// The positions of the batches reported with a sample refused (rare: values HealthKit refuses).
    var refusedBatches: [Int] = []
    /// How many batches were handed over (the position of the batch being filled) and how many were reported.
    var batchesHandedOver = 0
    var batchesReported = 0
    /// The batch the element being converted put its sample into, if it did (``append(_:_:syncHash:)``).
    var appendedBatch: Int?
    /// The runs being looked up in the store while the next one is read (``startCheck(runKey:)``), oldest first: each lookup's
    /// keyed hashes and index searches run in a task, beside this thread's parse, and each run is handled
    /// (``finishCheck()``) in order, before anything read after it.
    var checking: [(records: [(element: ExportElement, digest: [UInt8])], lookup: CheckLookup, runKey: Data?)] = []
    /// How many runs may be looked up at once: the lookups (1.76 M keyed hashes and index searches on a two-year
    /// export) are a re-import's longest chain; with several in flight they use both cores while this thread reads
    /// (re-import of that export, with runs of 2,000 records and none recognised whole: 7.4-8.0 s with one, 6.6-7.2 s
    /// with two, 6.1-6.2 s with three).
    static let checksInFlight = 3
    /// The batches being saved while the next one is read (``commit()``), oldest first, until ``finishSave()``: each
    /// signals its semaphore once it ended.
    var saving: [(semaphore: DispatchSemaphore, outcome: SaveOutcome, batch: SavedBatch)] = []
    /// The last batch reported, kept until the next one is: its objects are freed on this thread, not the writer's (the
    /// writer lets go of a batch once it has written it, which may be after it signalled).
    var retired: SavedBatch?
    /// Whether a batch failed (or was not written): the batches after it are not written.
    let saveChain = SaveChain()
    /// The bulk write the import runs in: the saves' tasks, created on the reader's Dispatch thread, run as its own.
    var bulkWriteOwner: HKHealthStore.BulkWriteOwner?

    static let maximumClinicalRecordElements = 1_000_000

    init(store: HKHealthStore, batchSize: Int, totalBytes: UInt64?, progress: @escaping @Sendable (AppleHealthImportProgress) -> Void) {
        self.store = store
        self.batchSize = batchSize
        self.totalBytes = totalBytes
        self.progress = progress
    }

    /// Reads the export, committing batches; the report and the clinical record files described.
    /// - Returns: the report, the clinical record files the export described, and the keyed fingerprints of the runs of
    ///   records found all stored (``RecordRun``).
    mutating func read(_ stream: PrologStrippedStream) throws -> (AppleHealthImportReport, [String: AppleHealthClinicalRecordFile], [Data]) {
        defer { stream.close() }
        var run = self
        run.stream = stream
        do {
            do {
                try ExportXMLReader().read(stream) { element in try run.handle(element) }
            } catch let error as AppleHealthExportError {
                // The parser only saw its input end: say why it ended (a damaged or refused archive entry).
                if let readError = stream.readError as? AppleHealthExportError { throw readError }
                if stream.readError != nil { throw AppleHealthExportError(.unreadable, "cannot read export.xml") }
                throw error
            }
            try run.checkUnchecked()
            try run.releaseHeld()
            try run.commit()
            try run.finishSave()
        } catch {
            // The lookup and the batch being saved end before the import does; a failed save came first in the file.
            for pending in run.checking { pending.lookup.done.wait() }
            try run.finishSave()
            throw error
        }
        try run.applyCharacteristics()
        return (run.report, run.clinicalRecordFiles, run.storedRunKeys)
    }

    // MARK: Elements

    mutating func handle(_ element: ExportElement) throws {
        if element.name == "Record", let type = checkableType(of: element) {
            // The same test as below, at the same point of the file: correlations end the run first.
            let digest = element.contentDigest
            if memberKeys.contains(ContentKey(digest)) {
                report.duplicates += 1
                return
            }
            let ends = recordRun.add(digest, type: type)
            if looksUpStoredRecords {
                // The reader's elements have buffers of their own, just large enough (``ExportBodyReader``): held as they are.
                unchecked.append((element, digest))
            } else {
                // Nothing stored to find (a first import): converted at once.
                appendedBatch = nil
                try convert(element, digest: digest)
                recordRunOutcome.converted(into: appendedBatch)
            }
            if ends { try endRecordRun() }
            return
        }
        if recordRun.count > 0 || !checking.isEmpty { try checkUnchecked() }
        try convert(element)
    }

    /// Converts an element and adds what it holds to the batch.
    private mutating func convert(_ element: ExportElement, digest known: [UInt8]? = nil, syncHash: HKHealthStore.KnownSyncHash? = nil,
                                  syncIdentifier: String? = nil) throws {
        switch element.name {
        case "ExportDate":
            break
        case "Me":
            if let expected = expectedPerson, let text = element["HKCharacteristicTypeIdentifierDateOfBirth"], !text.isEmpty,
               let birth = ExportValues.dateComponents(text), let year = birth.year, let month = birth.month, let day = birth.day {
                let date = ISODateText.string(year: year, month: month, day: day)
                guard date == expected.dateOfBirth else {
                    throw AppleHealthExportError(.otherPerson,
                                                 "this export is of a person born \(date), but this store belongs to \(expected.owner): "
                                                     + "the import stopped there")
                }
                meIsOwner = true
            }
            characteristics = element.attributes
        case "Record":
            let digest = known ?? element.contentDigest
            let key = ContentKey(digest)
            if memberKeys.contains(key) {
                report.duplicates += 1
                return
            }
            guard let saved = try record(element, digest: digest, syncIdentifier: syncIdentifier) else { return }
            if let beats = heartbeatSeries(element, of: saved.sample) { append(beats, saved.revision) }
            if Self.memberTypes.contains(saved.sample.sampleType.identifier) {
                if held.count < Self.maximumHeld, heldKeys.insert(key).inserted {
                    held.append((key, saved))
                    return
                }
                heldOverflowed = heldOverflowed || held.count >= Self.maximumHeld
            }
            append(saved.sample, saved.revision, syncHash: syncHash)
        case "Correlation":
            for child in element.children where child.name == "Record" {
                let key = ContentKey(child.contentDigest)
                if !heldKeys.contains(key), heldOverflowed {
                    report.skip("correlation member over the deduplication limit (imported twice)")
                }
                if memberKeys.count < Self.maximumMemberKeys { memberKeys.insert(key) }
            }
            guard let saved = try correlation(element) else { return }
            append(saved.sample, saved.revision)
        case "ClinicalRecord":
            clinicalRecord(element)
        case "ActivitySummary":
            activitySummary(element)
        case "Audiogram", "VisionPrescription":
            // Clinical measurements (ClinicalExportElements); a prescription names no source: the Health app's.
            var metadata = metadataEntries(element, handled: ClinicalExportElements.childNames)
            identify(&metadata, element.contentDigest)
            for child in element.children where child.name == "Attachment" {
                report.skip("VisionPrescription attachment (its image is not in the export)")
            }
            switch ClinicalExportElements.sample(element, metadata: metadata) {
            case .success(let sample):
                append(sample, element["sourceName"] == nil ? Self.activityRevision : try sourceRevision(of: element))
            case .failure(let skip):
                report.skip(skip.reason)
            }
        case "Workout":
            guard let saved = try workout(element) else { return }
            append(saved.sample, saved.revision)
            for child in element.children where child.name == "WorkoutRoute" {
                guard let route = try route(child, of: saved) else { continue }
                append(route.sample, route.revision)
                pendingLocations += (route.sample as? HKWorkoutRoute)?.count ?? 0
            }
        default:
            report.skip("unsupported element \(Self.label(element.name))")
        }
        if objects.count + summaries.count + pendingLocations >= batchSize { try commit() }
    }

    /// The type of a record that can be found in the store by the sync identifier its content gives it before it is
    /// converted, nil for any other: a plain top-level record (metadata entries only, none naming a sync identifier or
    /// version) of a type no correlation holds (those wait for their correlation, ``held``).
    mutating func checkableType(of element: ExportElement) -> String? {
        guard let type = recordType(of: element), !type.isMember else { return nil }
        for child in element.children {
            guard child.name == "MetadataEntry", child.has("key"), child.has("value"),
                  !child.attribute("key", is: HKMetadataKeySyncIdentifier), !child.attribute("key", is: HKMetadataKeySyncVersion) else { return nil }
        }
        return type.identifier
    }

    /// Ends the run being read (``endRecordRun()``) and handles every run being looked up: the records found stored (by an
    /// earlier import, at the version the importer gives) are counted as already stored, as the store's save would count
    /// them; the others are converted in order.
    mutating func checkUnchecked() throws {
        try endRecordRun()
        try finishChecks()
    }

    /// Ends the run being read. A run an earlier import found all stored (``storedRuns``) is counted as already stored,
    /// its records neither looked up nor converted; the records of another are looked up (``startCheck(runKey:)``) unless
    /// they were converted already (a first import), when the run waits for their batches (``finishRun(_:_:)``).
    mutating func endRecordRun() throws {
        guard recordRun.count > 0 else { return }
        let (run, outcome) = (recordRun, recordRunOutcome)
        recordRun = RecordRun()
        recordRunOutcome = RunOutcome()
        let key = storedRuns.map { $0.key(run.fingerprint()) }
        guard looksUpStoredRecords else {
            if let key { finishRun(key, outcome) }
            return
        }
        if let key, storedRuns?.contains(key) == true {
            for (type, count) in run.types { report.alreadyStored[type, default: 0] += count }
            unchecked.removeAll(keepingCapacity: true)
            storedRunKeys.append(key)
            progress(AppleHealthImportProgress(report: report, bytesRead: stream?.bytesRead ?? 0, totalBytes: totalBytes))
            return
        }
        try startCheck(runKey: key)
    }

    /// A run whose records were all converted or found stored: kept at once when none was converted, once the batches
    /// holding them are reported (``keepRuns(through:)``) when some were, never when one was left out.
    mutating func finishRun(_ key: Data, _ outcome: RunOutcome) {
        guard outcome.isComplete else { return }
        if outcome.batches == nil {
            storedRunKeys.append(key)
        } else {
            runsAwaitingBatches.append((key, outcome))
        }
    }

    /// Keeps the runs whose last batch is at most `position` (just reported), unless a sample of one of their batches was
    /// refused.
    mutating func keepRuns(through position: Int) {
        while let first = runsAwaitingBatches.first, let batches = first.outcome.batches, batches.upperBound <= position {
            runsAwaitingBatches.removeFirst()
            if !refusedBatches.contains(where: batches.contains) { storedRunKeys.append(first.key) }
        }
    }

    /// Starts looking the unchecked records (the run just read, whose keyed fingerprint is `runKey`) up in a task, once
    /// fewer than ``checksInFlight`` runs are being looked up (the oldest handled first).
    mutating func startCheck(runKey: Data?) throws {
        while checking.count >= Self.checksInFlight { try finishCheck() }
        guard !unchecked.isEmpty else { return }
        let records = unchecked
        unchecked.removeAll(keepingCapacity: true)
        var keys: [(syncIdentifier: String, typeIdentifier: String, sourceBundleIdentifier: String)] = []
        keys.reserveCapacity(records.count)
        var lookedUp: [Int] = []
        lookedUp.reserveCapacity(records.count)
        var types: [String?] = []
        types.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            let type = recordType(of: record.element)?.identifier
            types.append(type)
            guard let type, let bundle = lookupBundleIdentifier(of: record.element) else { continue }
            keys.append((AppleHealthImporter.syncIdentifierPrefix + ContentKey.hex(record.digest), type, bundle))
            lookedUp.append(index)
        }
        let lookup = CheckLookup(lookedUp: lookedUp, types: types, syncIdentifiers: keys.map(\.syncIdentifier))
        let (store, owner) = (store, bulkWriteOwner)
        Task { [keys] in
            do {
                lookup.outcome.set(.success(try await Self.asImport(store, owner) { try await store.storedSyncHashes(of: keys) }))
            } catch {
                lookup.outcome.set(.failure(error))
            }
            lookup.done.signal()
        }
        checking.append((records, lookup, runKey))
    }

    /// Handles every run being looked up, oldest first.
    mutating func finishChecks() throws {
        while !checking.isEmpty { try finishCheck() }
    }

    /// Waits for the oldest run being looked up, if any, and handles it: the records found stored are counted, the
    /// others converted in order.
    mutating func finishCheck() throws {
        guard !checking.isEmpty else { return }
        let (records, lookup, runKey) = checking.removeFirst()
        lookup.done.wait()
        let (versions, hashes) = try lookup.outcome.get()
        let (lookedUp, types) = (lookup.lookedUp, lookup.types)
        var stored = [Bool](repeating: false, count: records.count)
        var known = [HKHealthStore.KnownSyncHash?](repeating: nil, count: records.count)
        var identifiers = [String?](repeating: nil, count: records.count)
        for (position, index) in lookedUp.enumerated() {
            if position < lookup.syncIdentifiers.count { identifiers[index] = lookup.syncIdentifiers[position] }
            guard position < versions.count else { continue }
            stored[index] = (versions[position] ?? Int64.min) >= 1
            if position < hashes.count { known[index] = hashes[position] }
        }
        var skipped = false
        var outcome = RunOutcome()
        for (index, record) in records.enumerated() {
            if stored[index], let type = types[index] {
                report.alreadyStored[type, default: 0] += 1
                skipped = true
            } else {
                appendedBatch = nil
                try convert(record.element, digest: record.digest, syncHash: known[index], syncIdentifier: identifiers[index])
                outcome.converted(into: appendedBatch)
            }
        }
        if let runKey { finishRun(runKey, outcome) }
        if skipped { progress(AppleHealthImportProgress(report: report, bytesRead: stream?.bytesRead ?? 0, totalBytes: totalBytes)) }
    }

    /// The bundle identifier the element's records are stored under (``bundleIdentifier(ofSource:)``), nil when it
    /// names no source.
    private mutating func lookupBundleIdentifier(of element: ExportElement) -> String? {
        var cache = bundleIdentifiersByBytes
        bundleIdentifiersByBytes = AttributeValueCache([])
        defer { bundleIdentifiersByBytes = cache }
        return cache.value(in: element) {
            guard let name = element["sourceName"], !name.isEmpty else { return nil }
            return bundleIdentifier(ofSource: name)
        }
    }

    /// The element's `type` (nil when it has none), with the quantity or category type it names, made once per text.
    private mutating func recordType(of element: ExportElement) -> RecordType? {
        typesByBytes.value(in: element) {
            guard let type = element["type"] else { return nil }
            return RecordType(identifier: type, quantityType: HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: type)),
                              categoryType: HKObjectType.categoryType(forIdentifier: HKCategoryTypeIdentifier(rawValue: type)),
                              isMember: Self.memberTypes.contains(type))
        }
    }

    /// The bundle identifier records of the source named `name` are stored under
    /// (``AppleHealthImporter/source(named:)``), made once per name.
    private mutating func bundleIdentifier(ofSource name: String) -> String {
        if let cached = bundleIdentifiers[name] { return cached }
        let identifier = AppleHealthImporter.source(named: name).bundleIdentifier
        if bundleIdentifiers.count < 10_000 { bundleIdentifiers[name] = identifier }
        return identifier
    }

    /// Saves the held records no correlation claimed, in batches; the claimed ones are
    /// counted as duplicates.
    mutating func releaseHeld() throws {
        let records = held
        held = []
        heldKeys = []
        for (key, converted) in records {
            if memberKeys.contains(key) {
                report.duplicates += 1
                continue
            }
            append(converted.sample, converted.revision)
            if objects.count + summaries.count + pendingLocations >= batchSize { try commit() }
        }
    }

    private mutating func append(_ sample: HKSample, _ revision: HKSourceRevision, syncHash: HKHealthStore.KnownSyncHash? = nil) {
        if appendedBatch == nil { appendedBatch = batchesHandedOver }
        objects.append(sample)
        revisions.append(revision)
        knownSyncHashes.append(syncHash)
    }

    /// A name from the file, shortened for the report.
    static func label(_ text: String) -> String {
        text.count > 100 ? String(text.prefix(100)) + "…" : text
    }

    private func required(_ element: ExportElement, _ attribute: String) throws -> String {
        guard let value = element[attribute], !value.isEmpty else {
            throw AppleHealthExportError(.invalidElement, line: element.line, "\(element.name) has no \(attribute)")
        }
        return value
    }

    private func date(_ element: ExportElement, _ attribute: String) throws -> Date {
        if let date = element.withValueBytes(attribute, ExportValues.date(bytes:)) ?? nil { return date }
        guard let date = ExportValues.date(try required(element, attribute)) else {
            throw AppleHealthExportError(.invalidElement, line: element.line,
                                         "\(element.name) has a \(attribute) that is not a date like 2019-06-25 09:36:02 -0700")
        }
        return date
    }

    /// The element's source revision; its product type is the hardware of the element's Apple
    /// device (`hardware:Watch6,1` gives `Watch6,1`), so that statistics rank a watch before a
    /// phone and a phone before an app, as the Health app does, whatever the file's order.
    private mutating func sourceRevision(of element: ExportElement) throws -> HKSourceRevision {
        var cache = revisionsByBytes
        revisionsByBytes = AttributeValueCache([])
        defer { revisionsByBytes = cache }
        return try cache.value(in: element) { try sourceRevisionByText(of: element) }
    }

    private mutating func sourceRevisionByText(of element: ExportElement) throws -> HKSourceRevision {
        let name = try required(element, "sourceName")
        let version = element["sourceVersion"]
        let deviceText = element["device"]
        let key = name + "\u{0}" + (version ?? "\u{1}") + "\u{0}" + (deviceText ?? "\u{1}")
        if let cached = revisionCache[key] { return cached }
        let productType = deviceText.flatMap(ExportValues.device)?.hardwareVersion.flatMap(ExportValues.productType)
        let revision = HKSourceRevision(source: AppleHealthImporter.source(named: name), version: version, productType: productType,
                                        operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0))
        if revisionCache.count < 10_000 { revisionCache[key] = revision }
        return revision
    }

    /// The device the element's `device` attribute describes (``device(_:)``).
    private mutating func device(of element: ExportElement) -> HKDevice? {
        var cache = devicesByBytes
        devicesByBytes = AttributeValueCache([])
        defer { devicesByBytes = cache }
        return cache.value(in: element) { device(element["device"]) }
    }

    /// The device an element's `device` text describes (``ExportValues/device(_:)``), read once per text.
    private mutating func device(_ text: String?) -> HKDevice? {
        guard let text else { return nil }
        if let cached = deviceCache[text] { return cached }
        let device = ExportValues.device(text)
        if deviceCache.count < 10_000 { deviceCache[text] = .some(device) }
        return device
    }

    /// The element's `MetadataEntry` children as HealthKit metadata; other children are counted.
    private mutating func metadataEntries(_ element: ExportElement, handled: Set<String> = []) -> [String: Any] {
        var metadata: [String: Any] = [:]
        // Room for the entries and the sync identifier and version ``identify(_:_:)`` adds.
        metadata.reserveCapacity(element.children.count + 2)
        for child in element.children {
            if child.name == "MetadataEntry", let key = child["key"], let value = child["value"] {
                // Identifiers stay text whatever they look like.
                metadata[key] = key == HKMetadataKeySyncIdentifier || key == HKMetadataKeyExternalUUID ? value : ExportValues.metadataValue(value)
            } else if !handled.contains(child.name) {
                report.skip("unsupported element \(Self.label(child.name)) in \(element.name)")
            }
        }
        return metadata
    }

    /// A sync identifier from the element's content, so that importing it again replaces
    /// nothing and adds nothing; kept when the export already has one.
    /// `known` is that identifier when the store's lookup already made it.
    private func identify(_ metadata: inout [String: Any], _ digest: [UInt8], known: String? = nil) {
        guard metadata[HKMetadataKeySyncIdentifier] == nil || metadata[HKMetadataKeySyncVersion] == nil else { return }
        metadata[HKMetadataKeySyncIdentifier] = known ?? AppleHealthImporter.syncIdentifierPrefix + ContentKey.hex(digest)
        metadata[HKMetadataKeySyncVersion] = 1
    }

    /// An `ActivitySummary` element: the day's rings and goals (energy in the element's unit,
    /// times in minutes, stand hours as counts). One that cannot be read is counted.
    private mutating func activitySummary(_ element: ExportElement) {
        func quantity(_ attribute: String, _ unit: HKUnit) -> HKQuantity? {
            guard let text = element[attribute] else { return nil }
            guard let value = Double(text), value.isFinite else { return HKQuantity(unit: unit, doubleValue: .nan) }
            return HKQuantity(unit: unit, doubleValue: value)
        }
        let energyUnit = element["activeEnergyBurnedUnit"].flatMap { try? HKUnit.parse($0) } ?? .kilocalorie()
        guard let day = element["dateComponents"].flatMap(ExportValues.dateComponents),
              let summary = try? HKActivitySummary(
                dateComponents: day,
                activeEnergyBurned: quantity("activeEnergyBurned", energyUnit), activeEnergyBurnedGoal: quantity("activeEnergyBurnedGoal", energyUnit),
                appleMoveTime: quantity("appleMoveTime", .minute()), appleMoveTimeGoal: quantity("appleMoveTimeGoal", .minute()),
                appleExerciseTime: quantity("appleExerciseTime", .minute()), exerciseTimeGoal: quantity("appleExerciseTimeGoal", .minute()),
                appleStandHours: quantity("appleStandHours", .count()), standHoursGoal: quantity("appleStandHoursGoal", .count())) else {
            report.skip("unreadable ActivitySummary")
            return
        }
        summaries.append(summary)
    }

    /// A `ClinicalRecord` element: what it says about its resource file, kept for when the files are read.
    private mutating func clinicalRecord(_ element: ExportElement) {
        guard let path = element["resourceFilePath"], let name = path.split(separator: "/").last.map(String.init),
              ExportContainer.isSafeFileName(name) else {
            report.skip("ClinicalRecord without a resource file")
            return
        }
        guard clinicalRecordFiles.count < Self.maximumClinicalRecordElements else { return }
        clinicalRecordFiles[name] = AppleHealthClinicalRecordFile(name: name, sourceName: element["sourceName"], fhirVersion: element["fhirVersion"])
    }

    /// The child elements of a record that are not metadata entries (its beat list).
    private static let recordChildNames: Set<String> = [HeartbeatListReader.listName]

    /// A record, top-level or a correlation's member: both carry the sync identifier of their
    /// content, so a member and its top-level twin have the same one. `syncIdentifier` is the
    /// one of `digest` when the store's lookup made it.
    private mutating func record(_ element: ExportElement, digest: [UInt8], syncIdentifier: String? = nil) throws -> Converted? {
        guard let recordType = recordType(of: element), !recordType.identifier.isEmpty else {
            throw AppleHealthExportError(.invalidElement, line: element.line, "\(element.name) has no type")
        }
        let type = recordType.identifier
        let revision = try sourceRevision(of: element)
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        guard end >= start else {
            throw AppleHealthExportError(.invalidElement, line: element.line, "\(element.name) ends before it starts")
        }
        let device = device(of: element)
        var metadata = metadataEntries(element, handled: Self.recordChildNames)
        identify(&metadata, digest, known: syncIdentifier)
        if let quantityType = recordType.quantityType {
            guard let text = element["value"], let value = Double(text), value.isFinite else {
                report.skip("no numeric value for \(Self.label(type))")
                return nil
            }
            let unit = unitsByBytes.value(in: element) { element["unit"].flatMap { try? HKUnit.parse($0) } }
            guard let unit, quantityType.is(compatibleWith: unit) else {
                report.skip("unknown or incompatible unit for \(Self.label(type))")
                return nil
            }
            let sample = HKQuantitySample(type: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value), start: start, end: end,
                                          device: device, metadata: metadata.isEmpty ? nil : metadata)
            return (sample: sample as HKSample, revision: revision)
        }
        if let categoryType = recordType.categoryType {
            guard let text = element["value"], let value = ExportValues.categoryValue(text) else {
                report.skip("unknown value for \(Self.label(type))")
                return nil
            }
            let sample = HKCategorySample(type: categoryType, value: value, start: start, end: end, device: device,
                                          metadata: metadata.isEmpty ? nil : metadata)
            return (sample: sample as HKSample, revision: revision)
        }
        if ["HKDataTypeStateOfMind", "HKDataTypeIdentifierStateOfMind", HKDataTypeIdentifierUserAnnotatedMedicationConcept,
            HKMedicationDoseEventTypeIdentifierMedicationDoseEvent].contains(type) {
            // HealthKit samples, but the export format (HealthKit Export Version 14: Record, Correlation, Workout,
            // ActivitySummary, ClinicalRecord, Audiogram, VisionPrescription) documents no form for them.
            report.skip("\(Self.label(type)) (a HealthKit type Apple's export format does not carry: not stored)")
            return nil
        }
        if type.hasPrefix("HKDataType") {
            // HKDataTypeSleepDurationGoal and the like: the Health app's settings, not samples HealthKit apps can read.
            report.skip("\(Self.label(type)) (a Health app setting, not a HealthKit sample: not stored)")
            return nil
        }
        report.skip("unknown type \(Self.label(type))")
        return nil
    }

    /// The heartbeat series of a record's `HeartRateVariabilityMetadataList` (``HeartbeatListReader``),
    /// as HealthKit keeps it beside the HRV sample: from the record's start, with its device and
    /// a sync identifier derived from the record's, so a second import stores nothing new.
    private mutating func heartbeatSeries(_ element: ExportElement, of sample: HKSample) -> HKSample? {
        guard let list = element.children.first(where: { $0.name == HeartbeatListReader.listName }) else { return nil }
        var unreadable = 0
        let beats = element["startDate"].flatMap { HeartbeatListReader.beats(list, startText: $0, unreadable: &unreadable) }
        if unreadable > 0 { report.skipped["InstantaneousBeatsPerMinute without a readable time", default: 0] += unreadable }
        guard let beats else { return nil }
        var metadata: [String: Any] = [:]
        if let identifier = sample.metadata?[HKMetadataKeySyncIdentifier] as? String {
            metadata[HKMetadataKeySyncIdentifier] = identifier + ".heartbeats"
            metadata[HKMetadataKeySyncVersion] = sample.metadata?[HKMetadataKeySyncVersion] ?? 1
        }
        do {
            return try HKHeartbeatSeriesSample.imported(beats: beats, start: sample.startDate, device: sample.device,
                                                        metadata: metadata.isEmpty ? nil : metadata)
        } catch {
            report.skip("HeartRateVariabilityMetadataList with too many beats")
            return nil
        }
    }

    private mutating func correlation(_ element: ExportElement) throws -> Converted? {
        let type = try required(element, "type")
        guard let correlationType = HKObjectType.correlationType(forIdentifier: HKCorrelationTypeIdentifier(rawValue: type)) else {
            report.skip("unknown type \(Self.label(type))")
            return nil
        }
        let revision = try sourceRevision(of: element)
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        var members = Set<HKSample>()
        for child in element.children where child.name == "Record" {
            if let member = try record(child, digest: child.contentDigest) { members.insert(member.sample) }
        }
        guard !members.isEmpty else {
            report.skip("correlation without members \(Self.label(type))")
            return nil
        }
        var metadata = metadataEntries(element, handled: ["Record"])
        identify(&metadata, element.contentDigest)
        let sample = HKCorrelation(type: correlationType, start: start, end: end, objects: members,
                                   device: element["device"].flatMap(ExportValues.device), metadata: metadata)
        return (sample: sample as HKSample, revision: revision)
    }

    private static let energyTypes: Set<String> = [HKQuantityTypeIdentifier.activeEnergyBurned.rawValue]
    private static let distanceTypes: Set<String> = [
        HKQuantityTypeIdentifier.distanceWalkingRunning.rawValue, HKQuantityTypeIdentifier.distanceCycling.rawValue,
        HKQuantityTypeIdentifier.distanceSwimming.rawValue, HKQuantityTypeIdentifier.distanceWheelchair.rawValue,
        HKQuantityTypeIdentifier.distanceDownhillSnowSports.rawValue,
    ]

    private static func quantity(_ value: String?, _ unit: String?) -> HKQuantity? {
        guard let value, let number = Double(value), number.isFinite, let unit, let parsed = try? HKUnit.parse(unit) else { return nil }
        return HKQuantity(unit: parsed, doubleValue: number)
    }

    private mutating func workout(_ element: ExportElement) throws -> Converted? {
        let typeName = try required(element, "workoutActivityType")
        guard let activityType = ExportValues.enumValue(HKWorkoutActivityType.self, prefix: "HKWorkoutActivityType", typeName) else {
            report.skip("unknown workout activity type \(Self.label(typeName))")
            return nil
        }
        let revision = try sourceRevision(of: element)
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        guard end >= start else {
            throw AppleHealthExportError(.invalidElement, line: element.line, "Workout ends before it starts")
        }
        var energy = Self.quantity(element["totalEnergyBurned"], element["totalEnergyBurnedUnit"])
        var distance = Self.quantity(element["totalDistance"], element["totalDistanceUnit"])
        let duration = Self.quantity(element["duration"], element["durationUnit"] ?? "min")
            .flatMap { $0.is(compatibleWith: .second()) ? $0.doubleValue(for: .second()) : nil }
        var events: [HKWorkoutEvent] = []
        var statistics: [HKWorkoutImportedStatistics] = []
        var activities: [HKWorkoutActivity] = []
        for child in element.children {
            switch child.name {
            case "WorkoutActivity":
                switch WorkoutActivityElements.activity(child, workoutType: activityType) {
                case .success(let activity): activities.append(activity)
                case .failure(let error): report.skip(error.reason)
                }
            case "WorkoutEvent":
                guard let name = child["type"], let type = ExportValues.enumValue(HKWorkoutEventType.self, prefix: "HKWorkoutEventType", name),
                      let date = child["date"].flatMap(ExportValues.date) else {
                    report.skip("unreadable WorkoutEvent")
                    continue
                }
                let length = Self.quantity(child["duration"], child["durationUnit"] ?? "min")
                    .flatMap { $0.is(compatibleWith: .second()) ? $0.doubleValue(for: .second()) : nil } ?? 0
                let eventMetadata = metadataEntries(child)
                events.append(HKWorkoutEvent(type: type, dateInterval: DateInterval(start: date, duration: max(0, length)),
                                             metadata: eventMetadata.isEmpty ? nil : eventMetadata))
            case "WorkoutStatistics":
                if let read = WorkoutActivityElements.statistics(child) { statistics.append(read) }
                guard let type = child["type"], let sum = Self.quantity(child["sum"], child["unit"]) else { continue }
                if Self.energyTypes.contains(type), energy == nil, sum.is(compatibleWith: .kilocalorie()) { energy = sum }
                if Self.distanceTypes.contains(type), distance == nil, sum.is(compatibleWith: .meter()) { distance = sum }
            default:
                break
            }
        }
        if let energy, !energy.is(compatibleWith: .kilocalorie()) { return skipWorkout() }
        if let distance, !distance.is(compatibleWith: .meter()) { return skipWorkout() }
        var metadata = metadataEntries(element, handled: ["WorkoutEvent", "WorkoutStatistics", "WorkoutRoute", "WorkoutActivity"])
        identify(&metadata, element.contentDigest)
        let workout = HKWorkout(activityType: activityType, start: start, end: end, workoutEvents: events.isEmpty ? nil : events,
                                totalEnergyBurned: energy, totalDistance: distance, duration: duration,
                                device: element["device"].flatMap(ExportValues.device), metadata: metadata)
        if !activities.isEmpty || !statistics.isEmpty { workout.setImportedDetails(activities: activities, statistics: statistics) }
        return (sample: workout as HKSample, revision: revision)
    }

    /// A `WorkoutRoute` element's GPX file as a route of `workout` (already converted), linked
    /// to it by the workout's sync identifier. A route without its file, or whose file cannot
    /// be read as GPX, is counted, not fatal.
    private mutating func route(_ element: ExportElement, of workout: Converted) throws -> Converted? {
        guard let path = element.children.first(where: { $0.name == "FileReference" })?["path"] else {
            report.skip("WorkoutRoute without a FileReference")
            return nil
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0] == "workout-routes", let name = parts.last.map(String.init), ExportContainer.isSafeFileName(name) else {
            report.skip("WorkoutRoute with a file outside workout-routes/")
            return nil
        }
        guard let container, let workoutSync = workout.sample.metadata?[HKMetadataKeySyncIdentifier] as? String else {
            report.skip("WorkoutRoute whose GPX file is missing from the export")
            return nil
        }
        let syncIdentifier = workoutSync + ":route:" + name
        // A route an earlier import stored is counted as the save would count it, without reading its GPX file again.
        if let sourceName = element["sourceName"], !sourceName.isEmpty {
            let key = (syncIdentifier: syncIdentifier, typeIdentifier: HKWorkoutRouteTypeIdentifier,
                       sourceBundleIdentifier: bundleIdentifier(ofSource: sourceName))
            if let version = try wait({ [store] in try await store.storedSyncVersions(of: [key]) }).first ?? nil, version >= 1 {
                report.alreadyStored[HKWorkoutRouteTypeIdentifier, default: 0] += 1
                return nil
            }
        }
        let bytes: [UInt8]
        do {
            bytes = try container.read(folder: "workout-routes", name: name)
        } catch {
            report.skip("WorkoutRoute whose GPX file is missing from the export")
            return nil
        }
        let locations: [CLLocation]
        do {
            locations = try GPXRouteReader().locations(in: Data(bytes))
        } catch {
            report.skip("WorkoutRoute with a malformed GPX file")
            return nil
        }
        let revision = try sourceRevision(of: element)
        var metadata = metadataEntries(element, handled: ["FileReference"])
        metadata[HKMetadataKeySyncIdentifier] = syncIdentifier
        metadata[HKMetadataKeySyncVersion] = 1
        let route = try HKWorkoutRoute.imported(locations: locations, workoutSyncIdentifier: workoutSync,
                                                workoutSource: workout.revision.source,
                                                device: element["device"].flatMap(ExportValues.device), metadata: metadata)
        return (sample: route as HKSample, revision: revision)
    }

    private mutating func skipWorkout() -> Converted? {
        report.skip("workout with incompatible units")
        return nil
    }

    // MARK: Saving

    /// Starts saving the batch in one transaction: the batch is validated and sealed first on this (non-cooperative)
    /// thread (``HKHealthStore/prepareSaveBlocking(_:recordedAs:knownSyncHashes:)``) while SQLite writes the batches
    /// before, then handed to the store's writer (``HKHealthStore/enqueueSave(_:objects:recordedAs:knownSyncHashes:owner:skip:completion:)``),
    /// and this thread reads and converts the next batch while it is written. Batches are written one after the other,
    /// in order, each once the one before it was (a batch after one that failed is not written); at most three are in
    /// the store's hands at once. Handed straight to the writer's queue, the writer goes from one batch to the next
    /// without a task in between: with a task per batch, each waiting for the one before, the writer waited 2.4 s in
    /// all between batches on the two-year export while both cores were busy.
    mutating func commit() throws {
        guard !objects.isEmpty || !summaries.isEmpty else { return }
        try finishSave(keeping: 2)
        batchesHandedOver += 1
        let outcome = SaveOutcome()
        let semaphore = DispatchSemaphore(value: 0)
        let (store, objects, revisions, knownSyncHashes, summaries, owner, chain) = (
            store, objects, revisions, knownSyncHashes, summaries, bulkWriteOwner, saveChain
        )
        // A failure to prepare is the save's to handle (a refused sample is saved alone, anything else is the import's error).
        let prepared = Result { try store.prepareSaveBlocking(objects, recordedAs: revisions, knownSyncHashes: knownSyncHashes) }
        let position = chain.next()
        if summaries.isEmpty {
            store.enqueueSave(prepared, objects: objects, recordedAs: revisions, knownSyncHashes: knownSyncHashes, owner: owner,
                              skip: { chain.hasFailed(before: position) }) { result in
                switch result {
                case .success(let saved):
                    outcome.set(saved.counts)
                    for reason in saved.refused { outcome.refuse(reason) }
                case .failure(let error):
                    outcome.set(error)
                    chain.fail(position)
                }
                semaphore.signal()
            }
        } else {
            // Activity summaries are saved through the store's asynchronous API, in a task, once the batches before are
            // written (none after one that failed), and before any later batch is handed to the writer (this thread
            // waits for it below).
            try finishSave(keeping: 0)
            Task {
                defer { semaphore.signal() }
                do {
                    let counts = try await Self.asImport(store, owner) {
                        guard !chain.hasFailed(before: position) else { throw CancellationError() }
                        var counts = HKSaveCounts()
                        if !objects.isEmpty {
                            counts.add(try await Self.save(prepared, objects, recordedAs: revisions, knownSyncHashes: knownSyncHashes, into: store,
                                                           refused: outcome))
                        }
                        var summaryCounts = try await store.saveActivitySummaries(summaries, recordedAs: Self.activityRevision)
                        // Stored under the storage type's identifier: reported as activity summaries.
                        summaryCounts.stored = [HKActivitySummaryTypeIdentifier: summaryCounts.storedCount]
                        summaryCounts.alreadyStored = [HKActivitySummaryTypeIdentifier: summaryCounts.alreadyStoredCount]
                        counts.add(summaryCounts)
                        return counts
                    }
                    outcome.set(counts)
                } catch {
                    outcome.set(error)
                    chain.fail(position)
                }
            }
        }
        saving.append((semaphore, outcome, SavedBatch(objects: objects, prepared: prepared)))
        self.objects.removeAll(keepingCapacity: true)
        self.revisions.removeAll(keepingCapacity: true)
        self.knownSyncHashes.removeAll(keepingCapacity: true)
        self.summaries.removeAll(keepingCapacity: true)
        pendingLocations = 0
        if !summaries.isEmpty { try finishSave(keeping: 0) }
    }

    /// Runs `body` as part of the import's bulk write (`owner`), if it runs in one.
    private static func asImport<T: Sendable>(_ store: HKHealthStore, _ owner: HKHealthStore.BulkWriteOwner?,
                                              _ body: () async throws -> T) async throws -> T {
        guard let owner else { return try await body() }
        return try await store.asBulkWriteSave(owner, body)
    }

    /// Saves a batch whole. When the store refuses it because one of its samples is not valid (a value
    /// HealthKit refuses as well, such as a negative workout duration or a distance too large to be finite
    /// in meters), nothing of it was written (samples are checked before the batch's transaction): its
    /// samples are then saved one by one, and each one refused is left out with the store's reason instead
    /// of ending the import.
    private static func save(_ prepared: Result<HKHealthStore.PreparedSave, any Error>, _ objects: [HKObject], recordedAs revisions: [HKSourceRevision],
                             knownSyncHashes: [HKHealthStore.KnownSyncHash?], into store: HKHealthStore, refused: SaveOutcome) async throws -> HKSaveCounts {
        do {
            return try await store.save(prepared.get())
        } catch let error as HKError where error.code == .errorInvalidArgument {
            var counts = HKSaveCounts()
            for (index, (object, revision)) in zip(objects, revisions).enumerated() {
                do {
                    let known = index < knownSyncHashes.count ? knownSyncHashes[index] : nil
                    counts.add(try await store.save([object], recordedAs: [revision], knownSyncHashes: [known]))
                } catch let error as HKError where error.code == .errorInvalidArgument {
                    refused.refuse(error.message)
                }
            }
            return counts
        }
    }

    /// Waits for the batch being saved, if any, and adds what it stored to the report.
    mutating func finishSave() throws {
        try finishSave(keeping: 0)
    }

    /// Waits for the batches being saved, oldest first, until at most `keeping` are left, and reports them. When one
    /// failed, the others are still waited for (none written after it) and its error is thrown.
    mutating func finishSave(keeping: Int) throws {
        var failure: (any Error)?
        var keeping = keeping
        while saving.count > keeping {
            let pending = saving.removeFirst()
            pending.semaphore.wait()
            retired = pending.batch
            let position = batchesReported
            batchesReported += 1
            if failure != nil { continue }
            if let error = pending.outcome.error {
                failure = error
                keeping = 0
                continue
            }
            report.add(pending.outcome.counts)
            let refused = pending.outcome.refused
            for reason in refused { report.skip("refused by the store: \(reason)") }
            if !refused.isEmpty { refusedBatches.append(position) }
            keepRuns(through: position)
            report.batches += 1
            progress(AppleHealthImportProgress(report: report, bytesRead: stream?.bytesRead ?? 0, totalBytes: totalBytes))
        }
        if let failure { throw failure }
    }

    /// Runs `body` in a task, waiting for it on this (non-cooperative) thread.
    private func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = WaitOutcome<T>()
        let semaphore = DispatchSemaphore(value: 0)
        let (store, owner) = (store, bulkWriteOwner)
        Task {
            do { outcome.set(.success(try await Self.asImport(store, owner, body))) } catch { outcome.set(.failure(error)) }
            semaphore.signal()
        }
        semaphore.wait()
        return try outcome.get()
    }

    /// Sets the characteristics from `Me` once the whole file was read.
    mutating func applyCharacteristics() throws {
        guard let attributes = characteristics else { return }
        // Another person's Me (or one not known to be the owner's) fills only what is not set.
        let fillOnly = keepsOwnerCharacteristics && !meIsOwner
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "HKCharacteristicTypeIdentifierDateOfBirth":
                if value.isEmpty { continue }
                guard let components = ExportValues.dateComponents(value) else { report.skip("unreadable date of birth"); continue }
                if fillOnly, (try? store.dateOfBirthComponents()) != nil { continue }
                do {
                    try store.setDateOfBirth(components)
                } catch let error as HKError where error.code == .errorInvalidArgument {
                    // A date of birth the store refuses (one after today) is left out with its reason; the samples stay.
                    report.skip("date of birth refused by the store: \(error.message)")
                    continue
                }
            case "HKCharacteristicTypeIdentifierBiologicalSex":
                guard let sex = ExportValues.enumValue(HKBiologicalSex.self, prefix: "HKBiologicalSex", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if try sex == .notSet || (fillOnly && store.biologicalSex().biologicalSex != .notSet) { continue }
                try store.setBiologicalSex(sex)
            case "HKCharacteristicTypeIdentifierBloodType":
                guard let bloodType = ExportValues.enumValue(HKBloodType.self, prefix: "HKBloodType", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if try bloodType == .notSet || (fillOnly && store.bloodType().bloodType != .notSet) { continue }
                try store.setBloodType(bloodType)
            case "HKCharacteristicTypeIdentifierFitzpatrickSkinType":
                guard let skin = ExportValues.enumValue(HKFitzpatrickSkinType.self, prefix: "HKFitzpatrickSkinType", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if try skin == .notSet || (fillOnly && store.fitzpatrickSkinType().skinType != .notSet) { continue }
                try store.setFitzpatrickSkinType(skin)
            case "HKCharacteristicTypeIdentifierWheelchairUse":
                guard let use = ExportValues.enumValue(HKWheelchairUse.self, prefix: "HKWheelchairUse", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if try use == .notSet || (fillOnly && store.wheelchairUse().wheelchairUse != .notSet) { continue }
                try store.setWheelchairUse(use)
            default:
                report.skip("unsupported characteristic \(Self.label(key))")
                continue
            }
            report.characteristics += 1
        }
    }
}

/// A batch handed to the store, held by the import until it was written, so that freeing its thousands of objects is
/// this thread's work rather than the writer's (1.5 s of the writer's time on the two-year export).
private struct SavedBatch {
    let objects: [HKObject]
    let prepared: Result<HKHealthStore.PreparedSave, any Error>
}

/// The first of an import's batches that failed or was not written, by the order they were handed over: the store's
/// writer asks before each later batch. A batch handed over before it is still written (its failure was reported
/// early, or it ran in a task): only the batches after a failed one are left unwritten.
private final class SaveChain: Sendable {
    private let firstFailed = Mutex<Int?>(nil)
    private let handedOver = Mutex(0)

    /// The next batch's position in the order batches are handed over.
    func next() -> Int {
        handedOver.withLock { count in
            defer { count += 1 }
            return count
        }
    }
    /// Whether a batch handed over before `batch` failed.
    func hasFailed(before batch: Int) -> Bool { firstFailed.withLock { $0.map { $0 < batch } ?? false } }
    func fail(_ batch: Int) { firstFailed.withLock { $0 = min($0 ?? batch, batch) } }
}

/// The error or counts of a save that ran on the store's writer or in a task, read by the thread that waited for it.
private final class SaveOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    private var savedCounts = HKSaveCounts()
    private var refusedReasons: [String] = []

    func set(_ error: any Error) { lock.withLock { stored = error } }
    func set(_ counts: HKSaveCounts) { lock.withLock { savedCounts = counts } }
    /// A sample the store refused, left out of the import.
    func refuse(_ reason: String) { lock.withLock { refusedReasons.append(reason) } }
    var error: (any Error)? { lock.withLock { stored } }
    /// The store's reasons for the samples it refused, one per sample.
    var refused: [String] { lock.withLock { refusedReasons } }
    /// What the save stored and found already stored.
    var counts: HKSaveCounts { lock.withLock { savedCounts } }
}

/// A run's lookup in the store, running in a task (``ImportRun/startCheck(runKey:)``): which records were looked up, their
/// types, and the versions found once `done` is signalled.
private final class CheckLookup: Sendable {
    let lookedUp: [Int]
    let types: [String?]
    /// The sync identifier each looked-up record was looked up by, in ``lookedUp``'s order (its conversion uses it).
    let syncIdentifiers: [String]
    let outcome = WaitOutcome<(versions: [Int64?], hashes: [HKHealthStore.KnownSyncHash])>()
    let done = DispatchSemaphore(value: 0)

    init(lookedUp: [Int], types: [String?], syncIdentifiers: [String]) {
        self.lookedUp = lookedUp
        self.types = types
        self.syncIdentifiers = syncIdentifiers
    }
}

/// The result of work that ran in a task, read by the thread that waited for it.
private final class WaitOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) { lock.withLock { result = value } }
    func get() throws -> T {
        guard let result = lock.withLock({ result }) else { throw CancellationError() }
        return try result.get()
    }
}
