import AsyncHTTPClient
import Foundation
import NIOHTTP1
import OpenHealthKit
import Testing
import TestSupport

/// The newcomer's path, through the built binary: `health demo --keep DIR` twice doubles nothing
/// and its card still verifies (with `health shc verify --issuer`, and on `health ui`'s Cards page
/// over the kept store); `health store import` of the same file twice, or after an interrupted
/// import, stores each row once and says what was already there.
@Suite("Imports that never duplicate", .serialized)
struct IdempotentImportTests {
    /// Every kind of sample the demo and the imports save, counted by an owner.
    static func counts(database: URL, keyFile: URL) async throws -> [String: Int] {
        let store = HKHealthStore(configuration: .init(location: .file(database), key: .keyFile(keyFile), role: .owner))
        try store.open()
        var types: [HKSampleType] = [HKQuantityType(.stepCount), HKQuantityType(.heartRate), HKQuantityType(.restingHeartRate),
                                     HKQuantityType(.bodyMass), HKQuantityType(.bloodGlucose), HKQuantityType(.bloodPressureSystolic),
                                     HKCategoryType(.sleepAnalysis), HKObjectType.workoutType(), HKCorrelationType(.bloodPressure)]
        types += [HKClinicalTypeIdentifier.allergyRecord, .conditionRecord, .immunizationRecord, .labResultRecord, .medicationRecord,
                  .procedureRecord, .vitalSignRecord].map { HKClinicalType($0) }
        var counts: [String: Int] = [:]
        if let cards = HKObjectType.sampleType(named: "verifiableClinicalRecord") {
            counts["cards"] = try await HKSampleQueryDescriptor(predicates: [.sample(type: cards)], sortDescriptors: []).result(for: store).count
        }
        for type in types {
            counts[type.identifier] = try await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: []).result(for: store).count
        }
        counts["shares"] = try await store.verifiableRecordShares().count
        return counts
    }

    @Test("""
        health demo --keep twice: the same counts after the second run, the same issuer key, \
        and the kept card verifies (shc verify --issuer, and the Cards page)
        """)
    func demoTwice() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let demo = runner.folder.appendingPathComponent("health-demo")
        let database = demo.appendingPathComponent("health.sqlite"), keyFile = demo.appendingPathComponent("health.key")
        let first = try await runner.run(["demo", "--days", "3", "--keep", demo.path])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("A SMART Health Card, verified and stored"))
        let afterFirst = try await Self.counts(database: database, keyFile: keyFile)
        #expect(afterFirst[HKQuantityTypeIdentifier.heartRate.rawValue] == 3 * 288)
        #expect(afterFirst["cards"] == 1)
        #expect(afterFirst["shares"] == 1)
        let privateKey = demo.appendingPathComponent("demo-issuer/issuer.private.jwk")
        let keyBytes = try Data(contentsOf: privateKey)
        let mode = try FileManager.default.attributesOfItem(atPath: privateKey.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let second = try await runner.run(["demo", "--days", "3", "--keep", demo.path])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.contains("it was already there: only what is missing is added"))
        #expect(second.output.contains("were already in the store: nothing was added"), "\(second.output)")
        #expect(second.output.contains("A SMART Health Card, verified and stored"))
        #expect(try await Self.counts(database: database, keyFile: keyFile) == afterFirst)
        #expect(try Data(contentsOf: privateKey) == keyBytes)

        // The kept card verifies with the kept issuer folder, as docs/cli.md says.
        let card = demo.appendingPathComponent("demo-issuer/vaccination.smart-health-card")
        let verified = try await runner.run(["shc", "verify", card.path, "--issuer", "https://demo-issuer.openhealthkit.example=\(demo.path)/demo-issuer"])
        #expect(verified.status == 0 && verified.output.contains("VALID"), "\(verified.output)\(verified.error)")

        // health ui over the kept store finds the demo issuer's keys (issuer-keys.json beside the store): the card verifies now.
        let (process, output, _) = try runner.launch(["ui", "--port", "0", "--store", database.path])
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let line = await LineReader(output).next() ?? ""
        let startURL = try #require(line.hasPrefix("open ") ? String(line.dropFirst(5)) : nil, "health ui did not start: \(line)")
        let origin = String(startURL.prefix { $0 != "?" }.dropLast("/session".count))
        let start = try await UICommandTests.get(startURL)
        let cookie = try #require(start.headers.first(name: "Set-Cookie")).split(separator: ";")[0]
        let cards = try await UICommandTests.get(origin + "/cards", cookie: String(cookie))
        #expect(cards.status == 200)
        #expect(cards.body.components(separatedBy: "data-verifies=\"yes\"").count == 2, "the demo card does not verify on the Cards page")
        #expect(!cards.body.contains("data-verifies=\"no\""))
    }

    /// 40 heart-rate rows, one a minute, and 10 sleep rows, in CSV.
    static func csvRows() -> [String] {
        let heart = (0..<40).map { "heartRate,2026-11-20T08:\(String(format: "%02d", $0)):00Z,,\(60 + $0 % 7),count/min" }
        let sleep = (0..<10).map { "sleepAnalysis,2026-11-20T0\($0):00:00Z,2026-11-20T0\($0):30:00Z,\(3 + $0 % 3)," }
        return heart + sleep
    }

    @Test("health store import of the same CSV, then the same JSON Lines, twice: each row stored once, and the second run says everything was already there",
          arguments: ["csv", "jsonl"])
    func importTwice(_ format: String) async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = runner.folder.appendingPathComponent("w2.\(format)")
        let text: String
        if format == "csv" {
            text = (["type,start,end,value,unit"] + Self.csvRows()).joined(separator: "\n") + "\n"
        } else {
            text = (0..<50).map { "{\"type\":\"stepCount\",\"start\":\"2026-11-2\($0 % 9)T10:\(String(format: "%02d", $0)):00Z\",\"value\":\($0 + 1)}" }
                .joined(separator: "\n") + "\n"
        }
        try text.write(to: file, atomically: true, encoding: .utf8)
        let database = URL(fileURLWithPath: runner.store), keyFile = runner.folder.appendingPathComponent("health.key")
        let first = try await runner.run(["store", "import", file.path, "--batch-size", "7"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output == "From w2.\(format): stored 50 new samples.\n")
        let afterFirst = try await Self.counts(database: database, keyFile: keyFile)
        #expect(afterFirst.filter { $0.key != "shares" }.values.reduce(0, +) == 50)
        let second = try await runner.run(["store", "import", file.path])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output == "Nothing new in w2.\(format): all 50 samples were already in the store.\n")
        #expect(try await Self.counts(database: database, keyFile: keyFile) == afterFirst)
    }

    @Test("An interrupted import (the first half of the file stored) resumes: the whole file afterwards leaves each row once")
    func interruptedImport() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let rows = Self.csvRows()
        let half = runner.folder.appendingPathComponent("half.csv"), whole = runner.folder.appendingPathComponent("whole.csv")
        try (["type,start,end,value,unit"] + rows.prefix(23)).joined(separator: "\n").write(to: half, atomically: true, encoding: .utf8)
        try (["type,start,end,value,unit"] + rows).joined(separator: "\n").write(to: whole, atomically: true, encoding: .utf8)
        #expect(try await runner.run(["store", "import", half.path]).status == 0)
        let resumed = try await runner.run(["store", "import", whole.path, "--batch-size", "10"])
        #expect(resumed.status == 0, "\(resumed.error)")
        #expect(resumed.output == "From whole.csv: stored 27 new samples; 23 samples were already in the store.\n")
        let counts = try await Self.counts(database: URL(fileURLWithPath: runner.store), keyFile: runner.folder.appendingPathComponent("health.key"))
        #expect(counts[HKQuantityTypeIdentifier.heartRate.rawValue] == 40)
        #expect(counts[HKCategoryTypeIdentifier.sleepAnalysis.rawValue] == 10)
    }

    @Test("Repeated rows are stored once and refused rows are named; correcting the file and importing again adds only the corrected row")
    func repeatedAndRefused() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = runner.folder.appendingPathComponent("mixed.csv")
        let good = "heartRate,2026-11-20T08:00:00Z,,61,count/min"
        try ["type,start,end,value,unit", good, good, "heartRate,2026-11-20T08:01:00Z,,sixty,count/min"].joined(separator: "\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let first = try await runner.run(["store", "import", file.path])
        #expect(first.status == 1)
        #expect(first.output == "From mixed.csv: stored 1 new sample; 1 repeated row skipped; 1 row refused.\n")
        #expect(first.error.contains("1 row was not stored: line 4: missing or invalid value. Correct it and import the file again"), "\(first.error)")
        try ["type,start,end,value,unit", good, good, "heartRate,2026-11-20T08:01:00Z,,60,count/min"].joined(separator: "\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let corrected = try await runner.run(["store", "import", file.path])
        #expect(corrected.status == 0, "\(corrected.error)")
        #expect(corrected.output == "From mixed.csv: stored 1 new sample; 1 sample was already in the store; 1 repeated row skipped.\n")
        let counts = try await Self.counts(database: URL(fileURLWithPath: runner.store), keyFile: runner.folder.appendingPathComponent("health.key"))
        #expect(counts[HKQuantityTypeIdentifier.heartRate.rawValue] == 2)
    }
}
