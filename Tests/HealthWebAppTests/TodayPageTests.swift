import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Today page")
struct TodayPageTests {
    /// The `data-value` of the Today card of `kind`.
    static func value(_ html: String, kind: String) -> String? {
        guard let card = html.components(separatedBy: "data-kind=\"\(kind)\"").dropFirst().first?.components(separatedBy: "</a>").first,
              let attribute = card.components(separatedBy: "data-value=\"").dropFirst().first else { return nil }
        return String(attribute.prefix { $0 != "\"" })
    }

    /// Today's totals equal the statistics API's sums, the newest values and last night's sleep are shown, each card links to its type.
    @Test("the first page is Today: its totals equal the statistics, with the newest values and last night's sleep")
    func totalsEqualStatistics() async throws {
        let fixture = try await WebTestFixture.make(days: 10)
        let calendar = WebTestFixture.calendar
        let start = calendar.startOfDay(for: WebTestFixture.now)
        let steps = try await HKStatisticsQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.stepCount),
                                       predicate: HKQuery.predicateForSamples(withStart: start, end: start.addingTimeInterval(86_400))),
            options: .cumulativeSum).result(for: fixture.store)
        let expectedSteps = try #require(steps?.sumQuantity()?.doubleValue(for: .count()))
        let (page, summary, old) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/", cookie: cookie), try await client.send(.get, "/summary?period=month", cookie: cookie),
                    try await client.send(.get, "/?period=year", cookie: cookie))
        }
        #expect(page.status == .ok)
        #expect(page.body.contains("<h1>Today</h1>"))
        #expect(Self.value(page.body, kind: "HKQuantityTypeIdentifierStepCount") == String(Int(expectedSteps)))
        #expect(page.body.contains("href=\"/browse/HKQuantityTypeIdentifierStepCount\" data-kind=\"HKQuantityTypeIdentifierStepCount\""))
        // The fixture has no distance: the card says so rather than showing 0.
        #expect(Self.value(page.body, kind: "HKQuantityTypeIdentifierDistanceWalkingRunning") == nil)
        // Last night: 4 h core and 1.5 h deep.
        #expect(Self.value(page.body, kind: "sleep") == "5.5")
        #expect(page.body.contains("Core: 4 h") && page.body.contains("Deep: 1 h 30 min"))
        let newestWeight = try #require(try await fixture.store.newest(of: HKQuantityType(.bodyMass)) as? HKQuantitySample)
        #expect(Self.value(page.body, kind: "HKQuantityTypeIdentifierBodyMass").flatMap(Double.init)
                == newestWeight.quantity.doubleValue(for: .gramUnit(with: .kilo)))
        #expect(page.body.contains(">Weight</span>") && page.body.contains(">Heart Rate</span>") && !page.body.contains("Body Mass"))
        // Blood pressure is one reading: systolic/diastolic.
        let pressure = try #require(try await fixture.store.newest(of: HKCorrelationType(.bloodPressure)) as? HKCorrelation)
        let systolic = try #require(pressure.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample)
        #expect(page.body.contains("data-systolic=\"\(Int(systolic.quantity.doubleValue(for: .millimeterOfMercury())))\""))
        #expect(page.body.contains("No workout today."))
        // The Summary is reachable, and its old address leads to it.
        #expect(summary.status == .ok && summary.body.contains("<h1>Summary</h1>"))
        #expect(old.status == .seeOther && old.headers[.location] == "/summary?period=year")
        #expect(page.body.contains("<a href=\"/\" aria-current=\"page\">Today</a>"))
    }

    @Test("Today in pounds after the person chose lb in Settings")
    func personUnits() async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let bodyMass = HKQuantityType(.bodyMass)
        try fixture.store.setPreferredUnit(.pound(), for: bodyMass)
        let html = try await fixture.webApp.todayContent(now: WebTestFixture.now)
        let newest = try #require(try await fixture.store.newest(of: bodyMass) as? HKQuantitySample)
        let pounds = try #require(Self.value(html, kind: bodyMass.identifier).flatMap(Double.init))
        #expect(abs(pounds - newest.quantity.doubleValue(for: .pound())) < 0.01)
        #expect(html.contains(" lb<"))
    }

    @Test("an empty store shows Today with no values, not an error")
    func emptyStore() async throws {
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        try store.open()
        let webApp = try HealthWebApp(store: store, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        let html = try await webApp.todayContent(now: WebTestFixture.now)
        #expect(html.contains("Nothing recorded today.") && html.contains("No sleep recorded last night.") && html.contains("No reading yet."))
    }

    /// A file store where a phone and a watch both record today's distance, active energy and
    /// exercise minutes over overlapping hours (and yesterday's, which Today must not count),
    /// with a run and a walk today and a run yesterday; opened as its owner.
    static func twoDevices(in folder: URL) async throws -> (owner: HKHealthStore, phone: HKSource, watch: HKSource) {
        let location = HKHealthStore.Location.file(folder.appendingPathComponent("health.sqlite"))
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        let phoneSource = HKSource(name: "iPhone", bundleIdentifier: "com.example.phone")
        let watchSource = HKSource(name: "Watch", bundleIdentifier: "com.example.watch")
        let distance = HKQuantityType(.distanceWalkingRunning), energy = HKQuantityType(.activeEnergyBurned)
        let exercise = HKQuantityType(.appleExerciseTime)
        let types: Set<HKSampleType> = [distance, energy, exercise, HKObjectType.workoutType()]
        let today = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now)
        func at(_ hour: Double) -> Date { today.addingTimeInterval(hour * 3600) }
        func sample(_ type: HKQuantityType, _ unit: HKUnit, _ value: Double, _ from: Double, _ to: Double) -> HKQuantitySample {
            HKQuantitySample(type: type, quantity: HKQuantity(unit: unit, doubleValue: value), start: at(from), end: at(to))
        }
        // Each device's samples, today (hours 7 to 11) and yesterday (hours -17 to -16): the two
        // disagree where both were carried, so which one counts depends on the priority.
        let phoneSamples = [sample(distance, .meter(), 1_180, 8, 9), sample(distance, .meter(), 640.5, 9, 10), sample(distance, .meter(), 2_000, -17, -16),
                            sample(energy, .kilocalorie(), 61.5, 8, 9), sample(energy, .kilocalorie(), 35, 10, 11),
                            sample(exercise, .minute(), 12, 8, 8.2)]
        let watchSamples = [sample(distance, .meter(), 6_050, 7, 7.6), sample(distance, .meter(), 1_240, 8, 9), sample(distance, .meter(), 310, 10, 11),
                            sample(distance, .meter(), 2_100, -17, -16),
                            sample(energy, .kilocalorie(), 402.4, 7, 7.6), sample(energy, .kilocalorie(), 70.2, 8, 9),
                            sample(exercise, .minute(), 35, 7, 7 + 35.0 / 60), sample(exercise, .minute(), 14, 8, 8 + 14.0 / 60),
                            sample(exercise, .minute(), 40, -17, -16)]
        let workouts = [
            HKWorkout(activityType: .running, start: at(7), end: at(7 + 35.0 / 60), workoutEvents: nil,
                      totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 402.4), totalDistance: HKQuantity(unit: .meter(), doubleValue: 6_050),
                      metadata: nil),
            HKWorkout(activityType: .walking, start: at(11), end: at(11.5), workoutEvents: nil,
                      totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 98), totalDistance: HKQuantity(unit: .meter(), doubleValue: 2_400),
                      metadata: nil),
            HKWorkout(activityType: .cycling, start: at(-17), end: at(-16), workoutEvents: nil, totalEnergyBurned: nil, totalDistance: nil, metadata: nil),
        ]
        for (source, samples) in [(phoneSource, phoneSamples as [HKSample]), (watchSource, watchSamples + workouts)] {
            let app = HKHealthStore(configuration: .init(location: location, key: key, source: source))
            try await app.requestAuthorization(toShare: types, read: types)
            try await app.save(samples)
        }
        let owner = HKHealthStore(configuration: .init(location: location, key: key, role: .owner))
        try owner.open()
        return (owner, phoneSource, watchSource)
    }

    /// Today's distance, active energy and exercise minutes equal the statistics API's sums of today
    /// with the phone and the watch merged by the person's source priority (either order), in the
    /// person's units (mi, kJ); today's workouts, not yesterday's, with their energy and distance.
    @Test("Today's distance, energy and exercise equal the statistics merged by source priority, in the person's units; today's workouts")
    func activityMergedBySourcePriority() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-today-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, phone, watch) = try await Self.twoDevices(in: folder)
        let distance = HKQuantityType(.distanceWalkingRunning), energy = HKQuantityType(.activeEnergyBurned)
        let exercise = HKQuantityType(.appleExerciseTime)
        try store.setPreferredUnit(.mile(), for: distance)
        try store.setPreferredUnit(.jouleUnit(with: .kilo), for: energy)
        let webApp = try HealthWebApp(store: store, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        let today = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now)
        /// Today's sum of `type` from the statistics API (all sources merged by priority).
        func statistics(_ type: HKQuantityType, _ unit: HKUnit) async throws -> Double {
            let result = try await HKStatisticsQueryDescriptor(
                predicate: .quantitySample(type: type, predicate: HKQuery.predicateForSamples(withStart: today, end: today.addingTimeInterval(86_400))),
                options: .cumulativeSum).result(for: store)
            return try #require(result?.sumQuantity()?.doubleValue(for: unit))
        }
        func card(_ html: String, _ type: HKQuantityType) throws -> Double {
            try #require(Self.value(html, kind: type.identifier).flatMap(Double.init), "\(type.identifier)")
        }
        var distances: [Double] = []
        for order in [[watch, phone], [phone, watch]] {
            for type in [distance, energy, exercise] { try store.setSourcePriority(order, for: type) }
            let html = try await webApp.todayContent(now: WebTestFixture.now)
            let miles = try await statistics(distance, .mile())
            distances.append(miles)
            #expect(abs(try card(html, distance) - miles) < 0.006)
            #expect(abs(try card(html, energy) - (try await statistics(energy, .jouleUnit(with: .kilo)))) < 0.006)
            #expect(abs(try card(html, exercise) - (try await statistics(exercise, .minute()))) < 0.006)
            #expect(html.contains(" mi</span>") && html.contains(" kJ</span>") && html.contains(" min</span>"), "\(html)")
            #expect(html.components(separatedBy: "Today, all sources merged.").count - 1 == 3)   // steps: none at all
            // Today's two workouts, the earliest first, in the person's units; not yesterday's ride.
            let workouts = html.components(separatedBy: "<li data-kind=\"workout\">").dropFirst().map { $0.components(separatedBy: "</li>")[0] }
            #expect(workouts == ["<strong>07:00</strong> Running 35 min, 1,684 kJ, 3.76 mi", "<strong>11:00</strong> Walking 30 min, 410 kJ, 1.49 mi"],
                    "\(workouts)")
            #expect(!html.contains("Cycling") && !html.contains("No workout today."))
        }
        // The priority decides which device's overlapping hour counts, and both orders count less than the two devices together.
        #expect(distances[0] != distances[1])
        let bothDevices = (6_050 + 1_240 + 310 + 1_180 + 640.5) / 1_609.344
        #expect(distances.allSatisfy { $0 < bothDevices - 0.5 })
    }
}
