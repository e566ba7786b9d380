import Crypto
import Foundation
import OpenHealthKit

/// Imports an Apple Health export (`export.xml`, as the Health app writes it) into a store.
///
/// The file is read as a stream, one top-level element at a time, so memory stays bounded
/// whatever its size. `Record` elements become quantity or category samples, `Correlation`
/// elements correlations with their member records, `Workout` elements workouts with their
/// events and totals, and the `Me` element the owner's characteristics. Each sample keeps the
/// source (name and version) and device the export names, its metadata, and its dates with the
/// offsets they were written with.
///
/// Samples are saved in batches, each in one transaction. Every sample carries a sync
/// identifier derived from its content (unless the export gave it one), so running the same
/// import again stores nothing twice and an interrupted import resumes where it stopped.
/// Elements the importer does not understand are counted in the report, never dropped silently.
public struct AppleHealthImporter: Sendable {
    /// Samples per transaction.
    public var batchSize: Int

    /// The prefix of the sync identifiers the importer gives samples.
    public static let syncIdentifierPrefix = "apple-health-export:"

    /// Creates an importer.
    public init(batchSize: Int = 10_000) {
        self.batchSize = max(1, batchSize)
    }

    /// The source an export's `sourceName` is stored under: exports name apps, not bundle
    /// identifiers, so the bundle identifier is derived from the name.
    public static func source(named name: String) -> HKSource {
        HKSource(name: name, bundleIdentifier: "apple-health-export." + name)
    }

    /// Imports the export at `url` into `store`, which must be opened as its owner.
    /// - Parameters:
    ///   - url: The `export.xml` file.
    ///   - store: The store, opened as its owner.
    ///   - progress: Called after each committed batch with the report so far.
    /// - Returns: what was imported and what was skipped.
    /// - Throws: ``AppleHealthExportError`` for a file that is not a well-formed export (the
    ///   batch being read is not saved; earlier batches stay, and running the import again
    ///   resumes), or the store's error.
    public func importExport(at url: URL, into store: HKHealthStore,
                             progress: @escaping @Sendable (AppleHealthImportReport) -> Void = { _ in }) async throws -> AppleHealthImportReport {
        let head: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            head = try handle.read(upToCount: ExportXMLReader.prologLimit) ?? Data()
        } catch {
            throw AppleHealthExportError(.unreadable, "cannot read \(url.lastPathComponent)")
        }
        try ExportXMLReader.checkProlog(head)
        let headCount = UInt64(head.count)
        let batchSize = batchSize
        // XMLParser is synchronous: it runs on a Dispatch thread (outside Swift's cooperative pool), which waits for each batch's save.
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let stream: InputStream
                    do {
                        let handle = try FileHandle(forReadingFrom: url)
                        let head = try handle.read(upToCount: Int(headCount)) ?? Data()
                        stream = PrologStrippedStream(head: head, handle: handle)
                    } catch {
                        throw AppleHealthExportError(.unreadable, "cannot read \(url.lastPathComponent)")
                    }
                    var run = ImportRun(store: store, batchSize: batchSize, progress: progress)
                    let report = try run.read(stream)
                    continuation.resume(returning: report)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

/// A sample read from the export and the source revision it is saved under.
private typealias Converted = (sample: HKSample, revision: HKSourceRevision)

/// One import: the batch being filled and the report so far.
private struct ImportRun {
    let store: HKHealthStore
    let batchSize: Int
    let progress: @Sendable (AppleHealthImportReport) -> Void
    var report = AppleHealthImportReport()
    var objects: [HKObject] = []
    var revisions: [HKSourceRevision] = []
    var pendingCounts: [String: Int] = [:]
    var characteristics: [String: String]?
    var revisionCache: [String: HKSourceRevision] = [:]

    init(store: HKHealthStore, batchSize: Int, progress: @escaping @Sendable (AppleHealthImportReport) -> Void) {
        self.store = store
        self.batchSize = batchSize
        self.progress = progress
    }

    mutating func read(_ stream: InputStream) throws -> AppleHealthImportReport {
        var run = self
        try ExportXMLReader().read(stream) { element in try run.handle(element) }
        try run.commit()
        try run.applyCharacteristics()
        return run.report
    }

    // MARK: Elements

    mutating func handle(_ element: ExportElement) throws {
        switch element.name {
        case "ExportDate":
            break
        case "Me":
            characteristics = element.attributes
        case "Record":
            guard let saved = try record(element, topLevel: true) else { return }
            append(saved.sample, saved.revision)
        case "Correlation":
            guard let saved = try correlation(element) else { return }
            append(saved.sample, saved.revision)
        case "Workout":
            guard let saved = try workout(element) else { return }
            append(saved.sample, saved.revision)
        default:
            report.skip("unsupported element \(Self.label(element.name))")
        }
        if objects.count >= batchSize { try commit() }
    }

    private mutating func append(_ sample: HKSample, _ revision: HKSourceRevision) {
        objects.append(sample)
        revisions.append(revision)
        pendingCounts[sample.sampleType.identifier, default: 0] += 1
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
        guard let date = ExportValues.date(try required(element, attribute)) else {
            throw AppleHealthExportError(.invalidElement, line: element.line,
                                         "\(element.name) has a \(attribute) that is not a date like 2019-06-25 09:36:02 -0700")
        }
        return date
    }

    private mutating func sourceRevision(of element: ExportElement) throws -> HKSourceRevision {
        let name = try required(element, "sourceName")
        let version = element["sourceVersion"]
        let key = name + "\u{0}" + (version ?? "\u{1}")
        if let cached = revisionCache[key] { return cached }
        let revision = HKSourceRevision(source: AppleHealthImporter.source(named: name), version: version, productType: nil,
                                        operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0))
        if revisionCache.count < 10_000 { revisionCache[key] = revision }
        return revision
    }

    /// The element's `MetadataEntry` children as HealthKit metadata; other children are counted.
    private mutating func metadataEntries(_ element: ExportElement, handled: Set<String> = []) -> [String: Any] {
        var metadata: [String: Any] = [:]
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
    private func identify(_ metadata: inout [String: Any], _ element: ExportElement) {
        guard metadata[HKMetadataKeySyncIdentifier] == nil || metadata[HKMetadataKeySyncVersion] == nil else { return }
        var hasher = SHA256()
        func feed(_ element: ExportElement) {
            hasher.update(data: Data(element.name.utf8))
            for (key, value) in element.attributes.sorted(by: { $0.key < $1.key }) {
                hasher.update(data: Data("\u{0}\(key)\u{1}\(value)".utf8))
            }
            hasher.update(data: Data("\u{2}".utf8))
            for child in element.children { feed(child) }
            hasher.update(data: Data("\u{3}".utf8))
        }
        feed(element)
        let hex = Array("0123456789abcdef")
        let digest = String(hasher.finalize().flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] })
        metadata[HKMetadataKeySyncIdentifier] = AppleHealthImporter.syncIdentifierPrefix + digest
        metadata[HKMetadataKeySyncVersion] = 1
    }

    private mutating func record(_ element: ExportElement, topLevel: Bool) throws -> Converted? {
        let type = try required(element, "type")
        let revision = try sourceRevision(of: element)
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        guard end >= start else {
            throw AppleHealthExportError(.invalidElement, line: element.line, "\(element.name) ends before it starts")
        }
        let device = element["device"].flatMap(ExportValues.device)
        var metadata = metadataEntries(element)
        if topLevel { identify(&metadata, element) }
        if let quantityType = HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: type)) {
            guard let text = element["value"], let value = Double(text), value.isFinite else {
                report.skip("no numeric value for \(Self.label(type))")
                return nil
            }
            guard let unitText = element["unit"], let unit = try? HKUnit.parse(unitText), quantityType.is(compatibleWith: unit) else {
                report.skip("unknown or incompatible unit for \(Self.label(type))")
                return nil
            }
            let sample = HKQuantitySample(type: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value), start: start, end: end,
                                          device: device, metadata: metadata.isEmpty ? nil : metadata)
            return (sample: sample as HKSample, revision: revision)
        }
        if let categoryType = HKObjectType.categoryType(forIdentifier: HKCategoryTypeIdentifier(rawValue: type)) {
            guard let text = element["value"], let value = ExportValues.categoryValue(text) else {
                report.skip("unknown value for \(Self.label(type))")
                return nil
            }
            let sample = HKCategorySample(type: categoryType, value: value, start: start, end: end, device: device,
                                          metadata: metadata.isEmpty ? nil : metadata)
            return (sample: sample as HKSample, revision: revision)
        }
        report.skip("unknown type \(Self.label(type))")
        return nil
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
            if let member = try record(child, topLevel: false) { members.insert(member.sample) }
        }
        guard !members.isEmpty else {
            report.skip("correlation without members \(Self.label(type))")
            return nil
        }
        var metadata = metadataEntries(element, handled: ["Record"])
        identify(&metadata, element)
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
        for child in element.children {
            switch child.name {
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
                guard let type = child["type"], let sum = Self.quantity(child["sum"], child["unit"]) else { continue }
                if Self.energyTypes.contains(type), energy == nil, sum.is(compatibleWith: .kilocalorie()) { energy = sum }
                if Self.distanceTypes.contains(type), distance == nil, sum.is(compatibleWith: .meter()) { distance = sum }
            case "WorkoutRoute":
                report.skip("WorkoutRoute (GPX routes are not imported)")
            default:
                break
            }
        }
        if let energy, !energy.is(compatibleWith: .kilocalorie()) { return skipWorkout() }
        if let distance, !distance.is(compatibleWith: .meter()) { return skipWorkout() }
        var metadata = metadataEntries(element, handled: ["WorkoutEvent", "WorkoutStatistics", "WorkoutRoute"])
        identify(&metadata, element)
        let workout = HKWorkout(activityType: activityType, start: start, end: end, workoutEvents: events.isEmpty ? nil : events,
                                totalEnergyBurned: energy, totalDistance: distance, duration: duration,
                                device: element["device"].flatMap(ExportValues.device), metadata: metadata)
        return (sample: workout as HKSample, revision: revision)
    }

    private mutating func skipWorkout() -> Converted? {
        report.skip("workout with incompatible units")
        return nil
    }

    // MARK: Saving

    /// Saves the batch in one transaction, waiting on this (non-cooperative) thread.
    mutating func commit() throws {
        guard !objects.isEmpty else { return }
        let outcome = SaveOutcome()
        let semaphore = DispatchSemaphore(value: 0)
        let (store, objects, revisions) = (store, objects, revisions)
        Task {
            do {
                try await store.save(objects, recordedAs: revisions)
            } catch {
                outcome.set(error)
            }
            semaphore.signal()
        }
        semaphore.wait()
        if let error = outcome.error { throw error }
        for (type, count) in pendingCounts { report.imported[type, default: 0] += count }
        report.batches += 1
        self.objects.removeAll(keepingCapacity: true)
        self.revisions.removeAll(keepingCapacity: true)
        pendingCounts.removeAll()
        progress(report)
    }

    /// Sets the characteristics from `Me` once the whole file was read.
    mutating func applyCharacteristics() throws {
        guard let attributes = characteristics else { return }
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "HKCharacteristicTypeIdentifierDateOfBirth":
                if value.isEmpty { continue }
                guard let components = ExportValues.dateComponents(value) else { report.skip("unreadable date of birth"); continue }
                try store.setDateOfBirth(components)
            case "HKCharacteristicTypeIdentifierBiologicalSex":
                guard let sex = ExportValues.enumValue(HKBiologicalSex.self, prefix: "HKBiologicalSex", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if sex == .notSet { continue }
                try store.setBiologicalSex(sex)
            case "HKCharacteristicTypeIdentifierBloodType":
                guard let bloodType = ExportValues.enumValue(HKBloodType.self, prefix: "HKBloodType", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if bloodType == .notSet { continue }
                try store.setBloodType(bloodType)
            case "HKCharacteristicTypeIdentifierFitzpatrickSkinType":
                guard let skin = ExportValues.enumValue(HKFitzpatrickSkinType.self, prefix: "HKFitzpatrickSkinType", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if skin == .notSet { continue }
                try store.setFitzpatrickSkinType(skin)
            case "HKCharacteristicTypeIdentifierWheelchairUse":
                guard let use = ExportValues.enumValue(HKWheelchairUse.self, prefix: "HKWheelchairUse", value) else {
                    report.skip("unknown value for \(key)"); continue
                }
                if use == .notSet { continue }
                try store.setWheelchairUse(use)
            default:
                report.skip("unsupported characteristic \(Self.label(key))")
                continue
            }
            report.characteristics += 1
        }
    }
}

/// The error of a save that ran in a task, read by the thread that waited for it.
private final class SaveOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?

    func set(_ error: any Error) { lock.withLock { stored = error } }
    var error: (any Error)? { lock.withLock { stored } }
}
