import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import FhirBlocks
import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import FHIRCore
import Foundation
import GRDB
import Logging
import NIOCore
import NIOHTTP1

// Bulk Data export (issue 38, `scripts/bench.sh export`): 100,000 Observations of one patient
// exported through the FhirBlocks server on loopback (SQLite in a temporary folder, its files
// written to disk beside it) against the ceiling, a raw SELECT of the same stored JSON written
// to a file, in the same run and on the same database file:
//
// - Ceiling: `SELECT json FROM fhir_resource WHERE patient = ? AND type = 'Observation'` over
//   GRDB on the store's file, each row and a line feed appended to a 256 KiB buffer written to a
//   file as it fills.
// - FhirBlocks: `GET /fhir/Patient/$export?_type=Observation` (Prefer: respond-async) with the
//   app's bearer token, the status URL polled every 10 ms (the server's Retry-After of 1 s is a
//   hint for real clients; the benchmark measures the server, not a client's patience), then the
//   one NDJSON file downloaded and written to a file as it arrives, as the ceiling writes its
//   own (gathered in a 256 KiB buffer written as it fills; its lines counted with memchr where
//   the ceiling counts rows). The token (a fresh one per iteration) and the job's DELETE
//   afterwards are outside the measured time.
//
// The goal: at least 0.5× the ceiling's throughput, with the server's memory growing by less
// than 64 MB. The memory figure is the process's resident set (the server and the benchmark's
// HTTP client, which streams the file to disk, share the process): the peak during the export
// (Linux `VmHWM`, reset through `/proc/self/clear_refs` before each iteration, and sampled at
// every poll) less the resident set before the kick-off.

let exportMemoryGrowth = BenchmarkMetric.custom("resident memory growth (MB)", polarity: .prefersSmaller, useScalingFactor: false)

let exportBenchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], timeUnits: .milliseconds, warmupIterations: 1,
                                                scalingFactor: .one, maxDuration: .seconds(120), maxIterations: 5)
    let base = "Bulk export of \(ExportFixture.observationCount.formatted()) Observations of one patient"

    Benchmark("\(base) (ceiling: raw SELECT of the stored JSON written to a file)", configuration: configuration) { benchmark in
        let fixture = try await ExportFixture.shared()
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.rawSelect())
        }
    }

    let measured = Benchmark.Configuration(metrics: [.wallClock, .throughput, exportMemoryGrowth], timeUnits: .milliseconds, warmupIterations: 1,
                                           scalingFactor: .one, maxDuration: .seconds(120), maxIterations: 5)
    Benchmark("\(base) (FhirBlocks over loopback: kick-off, poll, download to a file)", configuration: measured) { benchmark in
        let fixture = try await ExportFixture.shared()
        for _ in benchmark.scaledIterations {
            let token = try await fixture.freshToken()
            benchmark.startMeasurement()
            let result = try await fixture.export(token: token)
            benchmark.stopMeasurement()
            benchmark.measurement(exportMemoryGrowth, result.memoryGrowthMB)
            try await fixture.delete(result.location, token: token)
        }
    }
}

/// A server on SQLite whose one patient's wallet granted an app its Observations, with
/// ``observationCount`` of them stored; the app's keys; a scratch folder for the files written.
struct ExportFixture: Sendable {
    static let observationCount = Int(ProcessInfo.processInfo.environment["OPENHEALTHKIT_EXPORT_BENCH_COUNT"] ?? "") ?? 100_000
    static let instance = FixtureOnce { try await ExportFixture.start() }

    static func shared() async throws -> ExportFixture { try await instance.get() }

    let base: String
    let databasePath: String
    let patient: CsiGuid
    let app: CsiGuid
    let appKey: CsiSigningKey
    let scratch: String
    let client: HTTPClient
    /// The ceiling's connection to the store's database file.
    let ceilingDatabase: DatabaseQueue

    static func start() async throws -> ExportFixture {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let unlimited = RateLimit(perSecond: 1_000_000, burst: 1_000_000)
        let (base, store) = try await startFhirBlocks(logger: logger, configuration: ServerConfiguration(rateLimitPerAddress: unlimited,
                                                                                                         rateLimitPerIdentity: unlimited))
        let setup = FixtureSetup(base: base)
        let walletKey = CsiSigningKey.generate(), appKey = CsiSigningKey.generate()
        let wallet = try await setup.register(key: walletKey, applicationClass: "org.fhirblocks.csa")
        let app = try await setup.register(key: appKey, applicationClass: "org.fhirblocks.dapp")
        try await setup.grant(wallet: wallet, key: walletKey, to: app)
        try await setup.client.shutdown()
        // The Observations, stored as a PUT stores them (meta with versionId and lastUpdated), 5,000 a transaction.
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        var change = TrustChange()
        for index in 0..<observationCount {
            let id = "hr-\(index)"
            let json = #"{"resourceType":"Observation","id":"\#(id)","meta":{"versionId":"1","lastUpdated":"\#(now.wireText)"},"status":"final","#
                + #""category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"#
                + #""code":{"coding":[{"system":"http://loinc.org","code":"8867-4","display":"Heart rate"}]},"#
                + #""effectiveDateTime":"2026-01-01T00:00:00Z","valueQuantity":{"value":\#(50 + index % 90),"unit":"beats/minute","#
                + #""system":"http://unitsofmeasure.org","code":"/min"}}"#
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: id, patient: wallet, versionID: 1,
                                                                                 lastUpdated: now, json: Array(json.utf8))))
            if change.resources.count == 5_000 {
                try await store.commit(change)
                change = TrustChange()
            }
        }
        if !change.resources.isEmpty { try await store.commit(change) }
        let scratch = try ScratchFolder.untilExit("fhirblocks-export").url.path
        return ExportFixture(base: base, databasePath: store.path, patient: wallet, app: app, appKey: appKey, scratch: scratch,
                             client: HTTPClient(eventLoopGroupProvider: .singleton), ceilingDatabase: try DatabaseQueue(path: store.path))
    }

    /// The ceiling: the stored JSON of the patient's Observations, one line each, written to a file; the bytes written.
    func rawSelect() throws -> Int {
        let path = scratch + "/raw.ndjson"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(ExportFixture.bufferSize + 4096)
        var written = 0
        var lines = 0
        try ceilingDatabase.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT json FROM fhir_resource WHERE patient = ? AND type = 'Observation'",
                                           arguments: [patient.rawValue])
            while let row = try rows.next() {
                let present = try row.withUnsafeData(atIndex: 0) { (json: Data?) -> Bool in
                    guard let json else { return false }
                    buffer.append(contentsOf: json)
                    return true
                }
                guard present else { continue }
                buffer.append(UInt8(ascii: "\n"))
                lines += 1
                if buffer.count >= ExportFixture.bufferSize {
                    try handle.write(contentsOf: buffer)
                    written += buffer.count
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        }
        try handle.write(contentsOf: buffer)
        written += buffer.count
        guard lines == ExportFixture.observationCount else { throw FixtureError("the SELECT read \(lines) rows") }
        return written
    }

    static let bufferSize = 256 << 10

    /// A new token for the app (patient/Observation.rs over the patient).
    func freshToken() async throws -> String {
        let setup = FixtureSetup(base: base)
        let token = try await setup.token(csi: app, key: appKey, scope: "patient/Observation.rs")
        try await setup.client.shutdown()
        return token
    }

    /// Kick-off, polling, download of the file to disk: the status URL and the resident memory's growth in MB.
    func export(token: String) async throws -> (location: String, memoryGrowthMB: Int) {
        let before = ResidentMemory.current()
        let resetPeak = ResidentMemory.resetPeak()
        var sampled = before
        var kickoff = HTTPClientRequest(url: "\(base)/fhir/Patient/$export?_type=Observation")
        kickoff.headers.add(name: "Authorization", value: "Bearer \(token)")
        kickoff.headers.add(name: "Accept", value: "application/fhir+json")
        kickoff.headers.add(name: "Prefer", value: "respond-async")
        let started = try await client.execute(kickoff, timeout: .seconds(60))
        _ = try await started.body.collect(upTo: 1 << 20)
        guard started.status == .accepted, let location = started.headers.first(name: "Content-Location") else {
            throw FixtureError("kick-off: \(started.status)")
        }
        var manifest: JSONObject?
        while manifest == nil {
            var poll = HTTPClientRequest(url: location)
            poll.headers.add(name: "Authorization", value: "Bearer \(token)")
            let status = try await client.execute(poll, timeout: .seconds(60))
            let body = try await status.body.collect(upTo: 1 << 20)
            sampled = max(sampled, ResidentMemory.current())
            switch status.status {
            case .accepted: try await Task.sleep(for: .milliseconds(10))
            case .ok: manifest = try JSONParser.parse(Array(body.readableBytesView)).objectValue
            default: throw FixtureError("status: \(status.status)")
            }
        }
        let outputs = manifest?["output"]?.arrayValue ?? []
        guard outputs.count == 1, let url = outputs[0]["url"]?.stringValue,
              outputs[0]["count"] == .number(String(ExportFixture.observationCount)) else {
            throw FixtureError("manifest: \(outputs)")
        }
        var download = HTTPClientRequest(url: url)
        download.headers.add(name: "Authorization", value: "Bearer \(token)")
        let file = try await client.execute(download, timeout: .seconds(600))
        guard file.status == .ok else { throw FixtureError("download: \(file.status)") }
        let path = scratch + "/export.ndjson"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        // As the ceiling writes its file: the bytes gathered in a 256 KiB buffer written as it
        // fills; the lines counted with memchr (the ceiling counts its rows).
        var buffer: [UInt8] = []
        buffer.reserveCapacity(ExportFixture.bufferSize + (64 << 10))
        var lines = 0
        var pieces = 0
        do {
            for try await piece in file.body {
                piece.withUnsafeReadableBytes { bytes in
                    lines += ExportFixture.lineFeeds(bytes)
                    buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
                }
                if buffer.count >= ExportFixture.bufferSize {
                    try handle.write(contentsOf: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
                pieces += 1
                if pieces % 64 == 0 { sampled = max(sampled, ResidentMemory.current()) }
            }
            try handle.write(contentsOf: buffer)
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        guard lines == ExportFixture.observationCount else { throw FixtureError("the file has \(lines) lines") }
        sampled = max(sampled, ResidentMemory.current())
        let peak = resetPeak ? max(sampled, ResidentMemory.peak()) : sampled
        return (location, Int(((Double(peak) - Double(before)) / 1_048_576).rounded()))
    }

    /// How many line feeds the bytes hold (found with memchr).
    static func lineFeeds(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard var cursor = bytes.baseAddress else { return 0 }
        let end = cursor + bytes.count
        var count = 0
        while cursor < end, let found = memchr(cursor, Int32(UInt8(ascii: "\n")), end - cursor) {
            count += 1
            cursor = UnsafeRawPointer(found) + 1
        }
        return count
    }

    /// Deletes the job (and its files).
    func delete(_ location: String, token: String) async throws {
        var request = HTTPClientRequest(url: location)
        request.method = .DELETE
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
    }
}

/// The process's resident set (Linux `/proc/self/status`), in bytes; 0 where it cannot be read.
enum ResidentMemory {
    static func current() -> Int { field("VmRSS:") }

    /// The peak since the last ``resetPeak()``.
    static func peak() -> Int { field("VmHWM:") }

    /// Resets the peak to the current resident set (`5` to `/proc/self/clear_refs`); false when the kernel refuses.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Array("5".utf8))) != nil
    }

    private static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = Int(line.dropFirst(name.count).split(separator: " ").first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}
