import Benchmark
import FHIRCore
import Foundation
import HealthRecords
import Hummingbird
import Logging
import NIOCore
import OpenHealthKit
import RecordsSync
import SmartHealthCards

// `health records sync` throughput against its ceiling, in one run on one machine:
//
// - The sync: `RecordsSynchronizer` against a plain FHIR server on 127.0.0.1 (Hummingbird,
//   static pages, not FhirBlocks: the client is measured, not our server) that serves the
//   clinical resources of the largest Synthea bundle as `searchset` pages of 100 with `next`
//   links, one search per clinical type: fetch every page, validate each resource with the R4
//   validator, classify, seal and store each page with the connection's state in one
//   transaction, into a new encrypted store per iteration.
// - The ceiling: the same pages fetched over the same HTTP client, then the same clinical records
//   (built in setup) saved with `saveHealthRecords` in one transaction: the network and the
//   store's own cost, without reading, validating or per-page commits.
//
// Timed: only the sync and the ceiling's fetch and save. Not timed: creating and opening the
// store, saving the connection, removing the store.

let resourcesPerSecond = BenchmarkMetric.custom("Throughput (resources/s)", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, resourcesPerSecond],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(20),
        maxIterations: 20
    )
    // `scripts/bench.sh --check` allows each figure a 25 % fall of its median from the stored baseline.
    let measured: [BenchmarkMetric] = [.wallClock, resourcesPerSecond]
    Benchmark.defaultConfiguration.thresholds = Dictionary(uniqueKeysWithValues: measured.map { ($0, BenchmarkThresholds(relative: [.p50: 25.0])) })

    Benchmark("Sync the largest Synthea patient (RecordsSynchronizer from a FHIR server on loopback, pages of 100)") { benchmark, fixture in
        let folder = try SyncScratch()
        defer { folder.remove() }
        let store = try folder.store()
        try await store.saveHealthRecordsConnection(fixture.connection.stored())
        let synchronizer = RecordsSynchronizer(store: store, http: fixture.http, verifier: fixture.verifier,
                                               options: .init(pageSize: 100, fetchCards: false))
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        let report = try await synchronizer.sync(named: fixture.connection.name)
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        precondition(report.records.stored.count == fixture.records.count && report.records.refusals.isEmpty, "the sync must store every clinical resource")
        benchmark.measurement(resourcesPerSecond, SyncScratch.rate(report.records.stored.count, elapsed))
    } setup: {
        try await SyncFixture.shared()
    }

    Benchmark("Sync the largest Synthea patient (ceiling: fetch the same pages, save the same records in one transaction)") { benchmark, fixture in
        let folder = try SyncScratch()
        defer { folder.remove() }
        let store = try folder.store()
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        for url in fixture.pageURLs {
            let response = try await fixture.http.get(url)
            precondition(response.status == 200)
            blackHole(response.body.count)
        }
        try await store.saveHealthRecords(fixture.records, source: HealthRecordImporter.source(named: "bench"))
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        benchmark.measurement(resourcesPerSecond, SyncScratch.rate(fixture.records.count, elapsed))
    } setup: {
        try await SyncFixture.shared()
    }
}

/// The static FHIR server, its pages, the connection to it and the records of the bundle.
final class SyncFixture: Sendable {
    let connection: RecordsConnection
    let pageURLs: [String]
    let records: [HKClinicalRecord]
    let http = SMARTHTTP()
    let verifier = SHCVerifier(resolver: StaticKeyResolver([:]), now: Date())

    private init(connection: RecordsConnection, pageURLs: [String], records: [HKClinicalRecord]) {
        self.connection = connection
        self.pageURLs = pageURLs
        self.records = records
    }

    private static let holder = Holder()

    static func shared() async throws -> SyncFixture { try await holder.get() }

    private actor Holder {
        var fixture: SyncFixture?
        func get() async throws -> SyncFixture {
            if let fixture { return fixture }
            let started = try await SyncFixture.start()
            fixture = started
            return started
        }
    }

    static func start() async throws -> SyncFixture {
        let bytes = try largestSyntheaBundle()
        guard case .resources(let slices, _) = try HealthRecordInput.read(bytes, validate: nil) else { throw CocoaError(.fileReadCorruptFile) }
        var byType: [String: [[UInt8]]] = [:]
        for slice in slices where ClinicalRecordClassifier.clinicalType(of: slice.resource) != nil {
            byType[slice.resourceType, default: []].append(slice.bytes)
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let pages = PageTable()
        let router = Router()
        router.get("fhir/:type") { request, context -> Response in
            let type = context.parameters.get("type") ?? ""
            let page = request.uri.queryParameters.get("page").flatMap { Int($0) } ?? 0
            let body = pages.page(type: type, index: page) ?? Array(#"{"resourceType":"Bundle","type":"searchset","total":0}"#.utf8)
            return Response(status: .ok, headers: [.contentType: "application/fhir+json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        var logger = Logger(label: "sync-bench")
        logger.logLevel = .error
        let application = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                                      onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CocoaError(.fileReadUnknown) }
        let base = "http://127.0.0.1:\(port)/fhir"

        var urls: [String] = []
        for (type, resources) in byType {
            let chunks = stride(from: 0, to: resources.count, by: 100).map { Array(resources[$0..<min($0 + 100, resources.count)]) }
            for (index, chunk) in chunks.enumerated() {
                let next = index + 1 < chunks.count ? #","link":[{"relation":"next","url":"\#(base)/\#(type)?page=\#(index + 1)"}]"# : ""
                var page = Array(#"""
                    {"resourceType":"Bundle","type":"searchset","total":\#(resources.count),"meta":{"lastUpdated":"2026-11-26T12:00:00Z"}\#(next),"entry":[
                    """#.utf8)
                for (position, resource) in chunk.enumerated() {
                    if position > 0 { page.append(UInt8(ascii: ",")) }
                    page += Array(#"{"search":{"mode":"match"},"resource":"#.utf8) + resource + [UInt8(ascii: "}")]
                }
                page += Array("]}".utf8)
                pages.set(type: type, index: index, page)
                urls.append(index == 0 ? "\(base)/\(type)" : "\(base)/\(type)?page=\(index)")
            }
        }
        // The records the ceiling saves: the importer's own, from the bundle.
        let folder = try SyncScratch()
        defer { folder.remove() }
        let importer = HealthRecordImporter(store: try folder.store(), verifier: SHCVerifier(resolver: StaticKeyResolver([:]), now: Date()))
        var report = HealthRecordImportReport()
        var records: [HKClinicalRecord] = []
        for url in urls {
            let response = try await SMARTHTTP().get(url)
            records += importer.clinicalRecords(inSearchPage: response.body, named: url, into: &report)
        }
        print("largest Synthea bundle: \(bytes.count) bytes, \(records.count) clinical resources in \(urls.count) pages")
        let connection = RecordsConnection(name: "bench", fhirBase: base,
                                           endpoints: SMARTEndpoints(authorization: "\(base)/authorize", token: "\(base)/token", registration: nil),
                                           clientID: "bench", redirectURI: "http://127.0.0.1:1/callback", patient: "p1",
                                           tokens: TokenGrant(accessToken: "t", expiresAt: nil, refreshToken: nil, scope: nil, patient: "p1"),
                                           connectedAt: Date())
        return SyncFixture(connection: connection, pageURLs: urls, records: records)
    }

    /// `$OPENHEALTHKIT_SHARED/fhir/examples/synthea-r4`, else `../shared` beside the repository.
    static func largestSyntheaBundle() throws -> [UInt8] {
        let shared: URL
        if let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_SHARED"], !path.isEmpty {
            shared = URL(fileURLWithPath: path)
        } else {
            shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared")
        }
        let folder = shared.appendingPathComponent("fhir/examples/synthea-r4")
        var largest: [UInt8] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(file)))
            if bytes.count > largest.count { largest = bytes }
        }
        return largest
    }
}

/// The server's pages, written once in setup and read by its handlers.
final class PageTable: @unchecked Sendable {
    private let lock = NSLock()
    private var pages: [String: [Int: [UInt8]]] = [:]

    func set(type: String, index: Int, _ bytes: [UInt8]) {
        lock.withLock { pages[type, default: [:]][index] = bytes }
    }

    func page(type: String, index: Int) -> [UInt8]? {
        lock.withLock { pages[type]?[index] }
    }
}

/// A new store in a temporary folder.
struct SyncScratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func store() throws -> HKHealthStore {
        let store = HKHealthStore(configuration: .init(location: .file(url.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(url.appendingPathComponent("health.key")), role: .owner))
        try store.open()
        return store
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    static func rate(_ count: Int, _ elapsed: Duration) -> Int {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Int(Double(count) / seconds) : 0
    }
}
