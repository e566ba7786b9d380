import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import DemoData
import Foundation
import HealthWebApp
import Hummingbird
import NIOCore
import OpenHealthKit

// `health ui`'s pages against the statistics queries they need, in one run on one machine
// (issue 17, and issue 39's "Today and the year Summary over a year of minute-level data each
// render in ≤ 2× the time of the statistics reads they need, measured in the same run"):
//
// - The Summary page: `HealthWebApp.summaryContent(period: .year, now:)`, what GET /summary?period=year
//   renders inside the layout: the year's statistics queries (steps, heart rate, weight, blood
//   pressure: daily collections; sleep: one sample query), the newest sample of every type for the
//   "latest values" table, and the rendering (SVG charts drawn by Swift, swift-mustache templates).
//   Its ceiling: `SummaryReport.load(...)`, the same statistics queries alone, with no rendering.
// - The Today page: `HealthWebApp.todayContent(now:)`, what GET / renders inside the layout: today's
//   totals (a statistics query per type), last night's sleep, the newest heart rate, resting heart
//   rate, weight and blood pressure, today's workouts and the trends (a weekly statistics
//   collection per type with data). Its ceilings: `TodayReport.load(...)`, the same reads alone;
//   and its statistics queries alone (`TodayStatistics`: the day totals and the trends' collections).
// - Each page also through `health ui`'s own application on 127.0.0.1 (GET over loopback HTTP
//   with a session, the layout included): the path a person runs.
//
// The stores: a year (365 days) of `health demo`'s generator (DemoData: a phone and a watch,
// 138,089 samples: steps, distance, active energy, exercise, heart rate, sleep, weight, blood pressure,
// glucose and runs; DemoDataTests counts them), saved once per benchmark in setup (not timed); and a year of
// minute-level data (the same demo year plus a heart rate and a step count every minute up to
// `MinuteYear.now`: 1,188,809 samples), generated once into an encrypted file store kept on disk
// between runs (`MinuteYear.folder`; about a minute to make on a quiet machine, reused after). The
// goal: each page in at most twice the time of its queries.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(20),
        maxIterations: 20,
        thresholds: [.wallClock: .init(relative: [.p50: 25.0])]
    )

    Benchmark("Summary page, a year of demo data (render)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.webApp.summaryContent(period: .year, now: UIFixture.now))
        }
    } setup: {
        try await UIFixture.make()
    }

    Benchmark("Summary page, a year of demo data (ceiling: its statistics queries alone)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await SummaryReport.load(from: fixture.store, period: .year, now: UIFixture.now, calendar: UIFixture.calendar))
        }
    } setup: {
        try await UIFixture.make()
    }

    minuteYearBenchmarks()
    newestSampleBenchmark()
}

/// The Summary (year) and Today pages over a year of minute-level data, in process and through
/// HTTP, each beside its queries alone.
func minuteYearBenchmarks() {
    Benchmark("Summary page, a year of minute-level data (render)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.webApp.summaryContent(period: .year, now: MinuteYear.now))
        }
    } setup: {
        try await MinuteYear.fixture()
    }

    Benchmark("Summary page, a year of minute-level data (HTTP: GET /summary?period=year)") { benchmark, server in
        for _ in benchmark.scaledIterations {
            blackHole(try await server.get("/summary?period=year"))
        }
    } setup: {
        try await UIServer.start(try await MinuteYear.fixture(), checking: "/summary?period=year")
    }

    Benchmark("Summary page, a year of minute-level data (ceiling: its statistics queries alone)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await SummaryReport.load(from: fixture.store, period: .year, now: MinuteYear.now, calendar: UIFixture.calendar))
        }
    } setup: {
        try await MinuteYear.fixture()
    }

    Benchmark("Today page, a year of minute-level data (render)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.webApp.todayContent(now: MinuteYear.now))
        }
    } setup: {
        try await MinuteYear.fixture()
    }

    Benchmark("Today page, a year of minute-level data (HTTP: GET /)") { benchmark, server in
        for _ in benchmark.scaledIterations {
            blackHole(try await server.get("/"))
        }
    } setup: {
        try await UIServer.start(try await MinuteYear.fixture(), checking: "/")
    }

    Benchmark("Today page, a year of minute-level data (ceiling: its reads alone, TodayReport.load)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await TodayReport.load(from: fixture.store, now: MinuteYear.now, calendar: UIFixture.calendar))
        }
    } setup: {
        try await MinuteYear.fixture()
    }

    Benchmark("Today page, a year of minute-level data (ceiling: its statistics queries alone)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await TodayStatistics.load(fixture.fixture.store, types: fixture.types, now: MinuteYear.now, calendar: UIFixture.calendar))
        }
    } setup: {
        try await TodayStatistics.make()
    }
}

/// One part of both pages' reads, measured alone (no ceiling; its median says what it adds to a
/// page): the newest sample of every sample type the store knows (`HKObjectType.allSampleTypes`,
/// one sorted query with limit 1 per type), as `StoreCatalog.newestSamples` reads it for the
/// Summary's latest values and the Today page's trends.
func newestSampleBenchmark() {
    Benchmark("Newest sample of every sample type, one query per type, a year of minute-level data") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            var found = 0
            for type in HKObjectType.allSampleTypes {
                let newest = HKSampleQueryDescriptor(predicates: [.sample(type: type)],
                                                     sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)], limit: 1)
                found += try await newest.result(for: fixture.store).count
            }
            blackHole(found)
        }
    } setup: {
        try await MinuteYear.fixture()
    }
}

/// The Today page's statistics queries alone, as the page sends them: today's sum of each of
/// `TodayReport.totalTypes` (a statistics query each) and the trends' weekly collection (five
/// weeks before today) of each quantity type holding samples. Which types hold samples is found
/// once in setup (the page finds it with a newest-sample query per type, which is not a statistics read).
struct TodayStatistics: Sendable {
    let fixture: UIFixture
    let types: [HKQuantityType]

    static func make() async throws -> TodayStatistics {
        let fixture = try await MinuteYear.fixture()
        return TodayStatistics(fixture: fixture, types: try await typesWithData(fixture.store))
    }

    static func typesWithData(_ store: HKHealthStore) async throws -> [HKQuantityType] {
        var types: [HKQuantityType] = []
        for case let type as HKQuantityType in HKObjectType.allSampleTypes {
            let newest = HKSampleQueryDescriptor(predicates: [.quantitySample(type: type)],
                                                 sortDescriptors: [SortDescriptor(\HKQuantitySample.startDate, order: .reverse)], limit: 1)
            if try await !newest.result(for: store).isEmpty { types.append(type) }
        }
        return types
    }

    /// Runs the queries; returns how many totals and collections were read.
    static func load(_ store: HKHealthStore, types: [HKQuantityType], now: Date, calendar: Calendar) async throws -> Int {
        let start = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        let today = HKQuery.predicateForSamples(withStart: start, end: end)
        var read = 0
        for type in TodayReport.totalTypes {
            let statistics = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: type, predicate: today),
                                                                   options: .cumulativeSum).result(for: store)
            if statistics?.sumQuantity() != nil { read += 1 }
        }
        let weeks = calendar.date(byAdding: .day, value: -35, to: start) ?? start.addingTimeInterval(-35 * 86_400)
        for type in types {
            let collection = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: type, predicate: HKQuery.predicateForSamples(withStart: weeks, end: start)),
                options: type.aggregationStyle == .cumulative ? .cumulativeSum : .discreteAverage, anchorDate: weeks,
                intervalComponents: DateComponents(day: 7)).result(for: store)
            if collection.statistics(for: weeks) != nil { read += 1 }
        }
        return read
    }
}

/// A store holding a year of demo data, and the web application over it.
struct UIFixture: Sendable {
    /// 2026-01-01T00:00:00Z: the demo's year is 2025.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    let store: HKHealthStore
    let webApp: HealthWebApp

    static func make() async throws -> UIFixture {
        let folder = try ScratchFolder.untilExit("ui-summary")
        let store = try BenchmarkStore.open(in: folder)
        try await saveDemoYear(into: store, endingAt: now)
        return UIFixture(store: store, webApp: try HealthWebApp(store: store, calendar: calendar, clock: { now }))
    }

    /// Saves 365 days of `health demo`'s data ending at the start of `end`'s day; returns how many samples.
    @discardableResult
    static func saveDemoYear(into store: HKHealthStore, endingAt end: Date) async throws -> Int {
        let data = DemoData.generate(days: 365, endingAt: end, calendar: calendar)
        try await store.save(data.phone + data.watch)
        for (workout, rates) in data.watchWorkouts {
            try await store.save(workout)
            try await store.add(rates, to: workout)
        }
        return data.phone.count + data.watch.count + data.watchWorkouts.reduce(0) { $0 + 1 + $1.heartRates.count }
    }
}

struct UIBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A year of minute-level data: the demo year (2025) and, from 2025-01-01T00:00Z up to `now`, a
/// heart rate and a step count every minute, in an encrypted file store kept between runs.
enum MinuteYear {
    /// 2025-12-31T20:00:00Z: "today" is the demo year's last day, with 20 hours of minute data.
    static let now = Date(timeIntervalSince1970: 1_767_211_200)
    /// 2025-01-01T00:00:00Z, the first minute.
    static let start = Date(timeIntervalSince1970: 1_735_689_600)
    /// Minutes from `start` to `now`: 525,360 (two samples each).
    static var minutes: Int { Int(now.timeIntervalSince(start) / 60) }
    /// Where the store is kept: `OPENHEALTHKIT_UI_BENCH_STORE`, else a folder under the system's
    /// temporary directory named for this generator's version (change `version` when the data changes).
    static let version = "v2"
    static var folder: URL {
        if let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_UI_BENCH_STORE"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("openhealthkit-bench-ui-minute-year-\(version)", isDirectory: true)
    }

    /// The store (made the first time, when the folder has no finished store) and the web application over it.
    static func fixture() async throws -> UIFixture {
        let folder = folder
        let done = folder.appendingPathComponent("complete")
        if !FileManager.default.fileExists(atPath: done.path) {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store = try open(folder)
            let started = ContinuousClock.now
            let count = try await fill(store)
            try Data("\(count) samples\n".utf8).write(to: done)
            let rate = BenchmarkStore.rate(count, ContinuousClock.now - started)
            FileHandle.standardError.write(Data("UIBenchmarks: made the minute-level year (\(count) samples, \(rate)/s) in \(folder.path)\n".utf8))
        }
        let store = try open(folder)
        return UIFixture(store: store, webApp: try HealthWebApp(store: store, calendar: UIFixture.calendar, clock: { now }))
    }

    static func open(_ folder: URL) throws -> HKHealthStore {
        let store = HKHealthStore(configuration: HKHealthStore.Configuration(
            location: .file(folder.appendingPathComponent("health.sqlite")), key: .keyFile(folder.appendingPathComponent("health.key")), role: .owner))
        try store.open()
        return store
    }

    /// Saves the demo year and the minute samples, 50,000 at a time; returns how many samples.
    static func fill(_ store: HKHealthStore) async throws -> Int {
        let end = UIFixture.calendar.date(byAdding: .day, value: 1, to: UIFixture.calendar.startOfDay(for: now)) ?? now
        var count = try await UIFixture.saveDemoYear(into: store, endingAt: end)
        let heartRate = HKQuantityType(.heartRate)
        let steps = HKQuantityType(.stepCount)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        var random = SplitMix64(state: 20_261_129)
        var batch: [HKObject] = []
        batch.reserveCapacity(50_000)
        for minute in 0..<minutes {
            let at = start.addingTimeInterval(Double(minute) * 60)
            let hour = (minute / 60) % 24
            let asleep = hour < 7 || hour >= 23
            let rate = asleep ? 50 + random.below(9) : 62 + random.below(30)
            batch.append(HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: Double(rate)), start: at, end: at))
            let walked = asleep ? 0 : random.below(120)
            batch.append(HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: Double(walked)),
                                          start: at, end: at.addingTimeInterval(60)))
            if batch.count >= 50_000 {
                try await store.save(batch)
                count += batch.count
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty {
            try await store.save(batch)
            count += batch.count
        }
        return count
    }
}

/// A small seeded generator, so every made store holds the same values.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// `health ui`'s application over a fixture on 127.0.0.1 (a free port), with a session.
struct UIServer: Sendable {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool = .init(idleTimeout: .seconds(120))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    let origin: String
    let cookie: String
    let fixture: UIFixture

    /// Starts the application and opens a session; checks that `path` answers a full page.
    static func start(_ fixture: UIFixture, checking path: String) async throws -> UIServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = fixture.webApp.application(port: 0) { continuation.yield($0) }
        Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw UIBenchmarkError("health ui did not start") }
        let start = try await fetch(fixture.webApp.startURL(port: port), cookie: nil)
        guard let cookie = start.cookie else { throw UIBenchmarkError("no session cookie: \(start.status)") }
        let server = UIServer(origin: "http://127.0.0.1:\(port)", cookie: cookie, fixture: fixture)
        let body = try await server.get(path)
        guard body.contains("</html>"), body.contains("<svg") || path == "/" else { throw UIBenchmarkError("GET \(path): not a full page") }
        return server
    }

    /// GETs `path` with the session; requires 200; returns the body.
    func get(_ path: String) async throws -> String {
        let answer = try await Self.fetch(origin + path, cookie: cookie)
        guard answer.status == 200 else { throw UIBenchmarkError("GET \(path): \(answer.status) \(answer.body.prefix(300))") }
        return answer.body
    }

    static func fetch(_ url: String, cookie: String?) async throws -> (status: Int, body: String, cookie: String?) {
        var request = HTTPClientRequest(url: url)
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        let setCookie = response.headers["set-cookie"].first.flatMap { $0.split(separator: ";").first }.map(String.init)
        return (Int(response.status.code), String(buffer: body), setCookie)
    }
}
