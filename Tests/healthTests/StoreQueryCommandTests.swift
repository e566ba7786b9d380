import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("health store query: every kind of data, read page by page")
struct StoreQueryCommandTests {
    private static func date(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    /// The store of `runner`, opened in this process as its owner under `source`.
    private static func store(_ runner: CommandRunner, source: HKSource = HKSource(name: "Watch", bundleIdentifier: "com.example.watch"))
        -> HKHealthStore {
        let database = URL(fileURLWithPath: runner.store)
        let key = database.deletingLastPathComponent().appendingPathComponent("health.key")
        return HKHealthStore(configuration: .init(location: .file(database), key: .keyFile(key), source: source, role: .owner))
    }

    /// One of each kind the store keeps, on 2026-11-20 (UTC).
    private static func seedEveryKind(_ runner: CommandRunner) async throws {
        // The CLI creates the store and its key.
        #expect(try await runner.run(["store", "add", "--type", "heartRate", "--value", "72", "--unit", "count/min",
                                      "--start", "2026-11-20T08:00:00Z"]).status == 0)
        let store = store(runner)
        let sleep = HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepCore.rawValue,
                                     start: try date("2026-11-20T01:00:00Z"), end: try date("2026-11-20T02:00:00Z"))
        let at = try date("2026-11-20T07:00:00Z")
        let systolic = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 120),
                                        start: at, end: at)
        let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 80),
                                         start: at, end: at)
        let pressure = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: at, end: at, objects: [systolic, diastolic])
        let runStart = try date("2026-11-20T17:00:00Z")
        let workout = HKWorkout(activityType: .running, start: runStart, end: runStart.addingTimeInterval(1_800), workoutEvents: nil,
                                totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 300),
                                totalDistance: HKQuantity(unit: .meter(), doubleValue: 5_000), metadata: nil)
        try await store.save([sleep, pressure, workout])
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData((0..<3).map { index in
            CLLocation(coordinate: CLLocationCoordinate2D(latitude: 48.85 + Double(index) / 1_000, longitude: 2.35), altitude: 30,
                       horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: runStart.addingTimeInterval(Double(index) * 600))
        })
        _ = try await builder.finishRoute(with: workout, metadata: nil)

        let revision = HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "com.example.watch"), version: nil,
                                        productType: nil, operatingSystemVersion: OperatingSystemVersion(majorVersion: 1, minorVersion: 0, patchVersion: 0))
        try await store.saveActivitySummaries([
            HKActivitySummary(dateComponents: DateComponents(year: 2026, month: 11, day: 19),
                              activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 380),
                              activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: 500),
                              appleExerciseTime: HKQuantity(unit: .minute(), doubleValue: 12),
                              exerciseTimeGoal: HKQuantity(unit: .minute(), doubleValue: 30),
                              appleStandHours: HKQuantity(unit: .count(), doubleValue: 9), standHoursGoal: HKQuantity(unit: .count(), doubleValue: 12)),
            HKActivitySummary(dateComponents: DateComponents(year: 2026, month: 11, day: 20),
                              activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 420),
                              activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: 500),
                              appleExerciseTime: HKQuantity(unit: .minute(), doubleValue: 32),
                              exerciseTimeGoal: HKQuantity(unit: .minute(), doubleValue: 30),
                              appleStandHours: HKQuantity(unit: .count(), doubleValue: 10), standHoursGoal: HKQuantity(unit: .count(), doubleValue: 12)),
        ], recordedAs: revision)

        let labDate = try date("2026-11-18T09:30:00Z")
        let observation = Data("""
            {"resourceType":"Observation","id":"a1c","status":"final","code":{"text":"Hemoglobin A1c"},"valueQuantity":{"value":6.3,"unit":"%"}}
            """.utf8)
        let lab = HKClinicalRecord(type: HKClinicalType(.labResultRecord), startDate: labDate, endDate: labDate, displayName: "Hemoglobin A1c",
                                   fhirResource: HKFHIRResource(resourceType: .observation, identifier: "a1c", data: observation,
                                                                sourceURL: URL(string: "https://fhir.example.org/r4/Observation/a1c"),
                                                                fhirVersion: .primaryR4()))
        let card = HKVerifiableClinicalRecord(recordTypes: ["https://smarthealth.cards#immunization"], issuerIdentifier: "https://issuer.example.org",
                                              subject: HKVerifiableClinicalRecordSubject(fullName: "John B. Anyperson",
                                                                                         dateOfBirthComponents: DateComponents(year: 1951, month: 1, day: 20)),
                                              issuedDate: labDate, relevantDate: labDate, expirationDate: nil, itemNames: ["COVID-19, mRNA"],
                                              sourceType: .smartHealthCard, dataRepresentation: Data("header.payload.signature".utf8))
        try await store.saveHealthRecords([lab, card], source: HKSource(name: "Good Health Clinic", bundleIdentifier: "org.example.clinic"))
    }

    private static func objects(_ runner: CommandRunner, _ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await runner.run(["store", "query"] + arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]], "\(result.output)")
    }

    private static func text(_ runner: CommandRunner, _ arguments: [String]) async throws -> String {
        let result = try await runner.run(["store", "query"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output
    }

    @Test("""
        Every kind the store keeps is read: quantity, category, correlation, workout with its route, route, \
        clinical and verifiable records, activity summaries
        """)
    func everyKind() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        try await Self.seedEveryKind(runner)

        #expect(try await Self.objects(runner, ["--type", "heartRate"]).first?["value"] as? Double == 72)
        #expect(try await Self.objects(runner, ["--type", "sleepAnalysis"]).first?["value"] as? Int == HKCategoryValueSleepAnalysis.asleepCore.rawValue)

        // Blood pressure: one reading of two values.
        let pressure = try await Self.objects(runner, ["--type", "bloodPressure"])
        #expect(pressure.count == 1)
        let members = try #require(pressure.first?["objects"] as? [[String: Any]])
        #expect(Set(members.compactMap { $0["value"] as? Double }) == [120, 80])
        let pressureLines = try await Self.text(runner, ["--type", "bloodPressure"]).split(separator: "\n")
        #expect(pressureLines.count == 1 && pressureLines[0].contains("120") && pressureLines[0].contains("80"))

        // A workout: duration, energy, distance and its route.
        let workout = try #require(try await Self.objects(runner, ["--type", "workout"]).first)
        #expect(workout["duration"] as? Double == 1_800)
        #expect(workout["energyKilocalories"] as? Double == 300)
        #expect(workout["distanceMeters"] as? Double == 5_000)
        let routes = try #require(workout["routes"] as? [[String: Any]])
        #expect(routes.count == 1 && routes.first?["locations"] as? Int == 3)
        #expect(try await Self.text(runner, ["--type", "workout"]).contains("route of 3 locations"))
        #expect(try await Self.objects(runner, ["--type", "workoutRoute"]).first?["locations"] as? Int == 3)

        // Clinical records: the record's name and its FHIR resource.
        let lab = try #require(try await Self.objects(runner, ["--type", "labResultRecord"]).first)
        #expect(lab["displayName"] as? String == "Hemoglobin A1c")
        let resource = try #require(lab["fhirResource"] as? [String: Any])
        #expect(resource["resourceType"] as? String == "Observation" && resource["identifier"] as? String == "a1c")
        #expect((resource["resource"] as? [String: Any])?["status"] as? String == "final")
        #expect(try await Self.text(runner, ["--type", "labResultRecord"]).contains("Hemoglobin A1c (Observation a1c)"))
        let card = try #require(try await Self.objects(runner, ["--type", "verifiableClinicalRecord"]).first)
        #expect(card["issuer"] as? String == "https://issuer.example.org")
        #expect((card["subject"] as? [String: Any])?["dateOfBirth"] as? String == "1951-01-20")
        #expect(card["itemNames"] as? [String] == ["COVID-19, mRNA"])

        // Activity summaries: newest day first, the rings with their goals.
        let summaries = try await Self.objects(runner, ["--type", "activitySummary"])
        #expect(summaries.compactMap { $0["date"] as? String } == ["2026-11-20", "2026-11-19"])
        #expect(summaries.first?["moveKilocalories"] as? Double == 420)
        #expect(summaries.first?["exerciseGoalMinutes"] as? Double == 30)
        #expect(summaries.first?["paused"] as? Bool == false)
        let rings = try await Self.text(runner, ["--type", "activity-summaries", "--ascending", "--from", "2026-11-20"])
        #expect(rings == "2026-11-20  Move 420/500 kcal  Exercise 32/30 min  Stand 10/12 h\n")
        #expect(try await Self.objects(runner, ["--type", "activitySummary", "--to", "2026-11-20"]).count == 1)
    }

    @Test("Pages split where samples share a start date: each sample once, in order, in both orders and with a limit",
          arguments: [1, 2, 3, 1_000])
    func pagesAcrossTies(pageSize: Int) async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "1", "--start", "2026-11-20T06:00:00Z"]).status == 0)
        let store = Self.store(runner)
        // Five samples at 08:00, one at 07:00 and one at 09:00, and the one at 06:00.
        var samples: [HKObject] = []
        for (index, time) in ["08:00", "07:00", "08:00", "09:00", "08:00", "08:00", "08:00"].enumerated() {
            let start = try Self.date("2026-11-20T\(time):00Z")
            samples.append(HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: Double(10 + index)),
                                            start: start, end: start.addingTimeInterval(60)))
        }
        try await store.save(samples)
        let page = ["--page-size", "\(pageSize)", "--limit", "0"]
        let newest = try await Self.objects(runner, ["--type", "stepCount"] + page)
        let oldest = try await Self.objects(runner, ["--type", "stepCount", "--ascending"] + page)
        let uuids = newest.compactMap { $0["uuid"] as? String }
        #expect(uuids.count == 8 && Set(uuids).count == 8)
        #expect(newest.compactMap { $0["start"] as? String } == ["09", "08", "08", "08", "08", "08", "07", "06"].map { "2026-11-20T\($0):00:00Z" })
        #expect(Set(oldest.compactMap { $0["uuid"] as? String }) == Set(uuids))
        #expect(oldest.compactMap { $0["start"] as? String } == newest.compactMap { $0["start"] as? String }.reversed())
        // A limit inside a run of equal dates, and the same text lines page by page as in one page
        // (columns are aligned within a page: compared without their padding).
        #expect(try await Self.objects(runner, ["--type", "stepCount", "--page-size", "\(pageSize)", "--limit", "4"]).count == 4)
        func unpadded(_ text: String) -> [String] {
            text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        }
        #expect(unpadded(try await Self.text(runner, ["--type", "stepCount"] + page))
                == unpadded(try await Self.text(runner, ["--type", "stepCount", "--limit", "0"])))
    }

    /// Saves `count` heart rates a minute apart into the runner's store.
    private static func seedHeartRates(_ runner: CommandRunner, count: Int) async throws {
        #expect(try await runner.run(["store", "add", "--type", "heartRate", "--value", "60", "--unit", "count/min",
                                      "--start", "2019-12-31T00:00:00Z"]).status == 0)
        let store = store(runner)
        let origin = try date("2020-01-01T00:00:00Z")
        for batch in stride(from: 0, to: count - 1, by: 5_000) {
            let samples: [HKObject] = (batch..<min(batch + 5_000, count - 1)).map { index in
                let start = origin.addingTimeInterval(Double(index) * 60)
                return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: .count().unitDivided(by: .minute()),
                                                                                            doubleValue: Double(60 + index % 40)),
                                        start: start, end: start)
            }
            try await store.save(samples)
        }
    }

    /// The peak resident memory of `/proc/PID/status` (VmHWM), in kilobytes; nil once the process is gone.
    private static func highWaterMark(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// Runs the built `health` and returns its exit status and peak resident memory in
    /// kilobytes. Its output is read a pipe's worth at a time, and its high-water mark read
    /// before each read: the command cannot run more than a pipe (64 KiB) ahead of the reads,
    /// so a command that builds its whole output before writing it is measured while it waits
    /// to write it. (`wait4`'s `ru_maxrss` cannot tell: a child started by `posix_spawn` counts
    /// the test process's memory from before its `exec`.)
    private static func peakMemory(_ runner: CommandRunner, _ arguments: [String]) async throws -> (status: Int32, kilobytes: Int) {
        let (process, output, error) = try runner.launch(arguments)
        return await withCheckedContinuation { continuation in
            // Reading blocks: on Dispatch threads, not the cooperative pool's.
            DispatchQueue.global().async {
                let errorRead = DispatchGroup()
                DispatchQueue.global().async(group: errorRead) { _ = error.fileHandleForReading.readDataToEndOfFile() }
                var peak = 0
                while true {
                    if let mark = highWaterMark(process.processIdentifier) { peak = max(peak, mark) }
                    if output.fileHandleForReading.availableData.isEmpty { break }
                }
                errorRead.wait()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, peak))
            }
        }
    }

    @Test("Memory stays flat: ten times the samples, JSON or text, costs no more than a few megabytes more")
    func memoryDoesNotGrowWithSamples() async throws {
        var peaks: [String: [Int]] = [:]
        for count in [2_000, 20_000] {
            let runner = CommandRunner()
            defer { runner.remove() }
            try await Self.seedHeartRates(runner, count: count)
            let counted = try await Self.objects(runner, ["--type", "heartRate", "--limit", "0"]).count
            #expect(counted == count)
            for (name, extra) in [("json", ["--json"]), ("text", [])] {
                let run = try await Self.peakMemory(runner, ["store", "query", "--type", "heartRate", "--limit", "0"] + extra)
                #expect(run.status == 0)
                peaks[name, default: []].append(run.kilobytes)
            }
        }
        // Holding the samples or the output costs some 4 KB per sample (2.25 GB for 679,621):
        // 18,000 more would be 70 MB more. Streamed, one page (1,000 samples) is held at a time.
        for (name, kilobytes) in peaks {
            let growth = kilobytes[1] - kilobytes[0]
            #expect(growth < 25_000, "\(name): \(kilobytes[0]) KB for 2,000 samples, \(kilobytes[1]) KB for 20,000")
        }
    }
}
