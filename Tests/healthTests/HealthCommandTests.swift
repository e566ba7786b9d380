import Foundation
import Testing
import OpenHealthKit

@Suite("The health command line")
struct HealthCommandTests {
    @Test("health demo runs end to end on a temporary store")
    func demo() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let result = try await runner.run(["demo", "--days", "3"])
        #expect(result.status == 0, "\(result.error)")
        for section in ["Steps per day", "Heart rate per day", "Latest weight", "Last night's sleep", "Blood pressure", "Runs:",
                        "Sources", "Anchored sync of body mass", "denied read access sees 0"] {
            #expect(result.output.contains(section), "missing \(section)")
        }
        #expect(result.output.contains("1 added and 1 deleted"))
        // Steps from the phone and the watch merge to what was walked, not their sum.
        #expect(result.output.contains("steps (as generated); counted by Watch"))
        // Health records: a Synthea patient's records by type, a card issued and verified, an app
        // reading lab results, a venue shared one card once.
        #expect(result.output.contains("Health records from a provider (a Synthea patient): 59 clinical records"))
        #expect(result.output.contains("labResultRecord      30"))
        #expect(result.output.contains("A SMART Health Card, verified and stored: Pfizer-BioNTech COVID-19 vaccine"))
        #expect(result.output.contains("The records app reads the latest lab results:"))
        #expect(result.output.contains("was shared 1 (shares on record: 1)"))
        // In a person's words and units: bpm, grouped step counts, sleep stages by name; one person
        // (the records' and the card's) is the store's owner, so nothing is refused or hinted.
        #expect(result.output.contains("Heart rate per day (bpm,") && !result.output.contains("count/min"), "\(result.output)")
        #expect(result.output.contains("Core sleep") && !result.output.contains("asleepCore"), "\(result.output)")
        #expect(result.output.range(of: #"Walked: \d{1,3}(,\d{3})+ steps"#, options: .regularExpression) != nil, "\(result.output)")
        // The distance, active energy and exercise minutes the demo records, per day and merged as the steps are.
        #expect(result.output.contains("Walking and running distance, active energy and exercise minutes per day"), "\(result.output)")
        #expect(result.output.range(of: #"\d{2}  +\d+\.\d km  +[\d,]+ kcal  +\d+ min"#, options: .regularExpression) != nil, "\(result.output)")
        #expect(result.output.range(of: #"Walked and ran: [\d,]+\.\d km \(as generated\)"#, options: .regularExpression) != nil, "\(result.output)")
        #expect(result.output.contains("for Antonio Castellanos") && !result.error.contains("hint:"), "\(result.error)")
    }

    @Test("add, query (text and JSON, with unit conversion), sources and delete")
    func addQueryDelete() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["store", "add", "--type", "heartRate", "--value", "72", "--unit", "count/min",
                                "--start", "2026-11-20T08:00:00Z", "--metadata", "HKWasUserEntered=true"]).status == 0)
        #expect(try await runner.run(["store", "add", "--type", "bodyMass", "--value", "160", "--unit", "lb",
                                "--start", "2026-11-20T07:00:00Z"]).status == 0)
        let json = try await runner.run(["store", "query", "--type", "bodyMass", "--unit", "kg", "--json"])
        #expect(json.status == 0)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(objects.count == 1)
        let kilograms = try #require(objects.first?["value"] as? Double)
        #expect(abs(kilograms - 160 * 0.45359237) < 1e-9)
        #expect(objects.first?["unit"] as? String == "kg")
        let heart = try await runner.run(["store", "query", "--type", "heartRate"])
        #expect(heart.output.contains("72 bpm"))
        let sources = try await runner.run(["store", "sources", "--type", "heartRate"])
        #expect(sources.output.contains("health CLI"))
        let uuid = try #require(objects.first?["uuid"] as? String)
        let deleted = try await runner.run(["store", "delete", "--uuid", uuid])
        #expect(deleted.status == 0 && deleted.output.contains("Deleted 1"))
        #expect(try await runner.run(["store", "query", "--type", "bodyMass"]).output.contains("No Body Mass samples"))
    }

    @Test("stats prints one bar per interval, empty ones included")
    func stats() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        for (day, value) in [("2026-11-18", 4000), ("2026-11-20", 8000)] {
            #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "\(value)",
                                    "--start", "\(day)T10:00:00Z", "--end", "\(day)T11:00:00Z"]).status == 0)
        }
        let result = try await runner.run(["store", "stats", "--type", "stepCount", "--interval", "day", "--from", "2026-11-18", "--to", "2026-11-21"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("2026-11-18") && lines[1].hasSuffix("4,000")
                    && lines[1].contains("████████████████████"))
        #expect(lines[2].hasPrefix("2026-11-19") && lines[2].hasSuffix("–"))
        #expect(lines[3].hasSuffix("8,000") && lines[3].contains(String(repeating: "█", count: 40)))
        let json = try await runner.run(["store", "stats", "--type", "stepCount", "--from", "2026-11-18", "--to", "2026-11-21", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((document["intervals"] as? [[String: Any]])?.count == 3)
    }

    @Test("Bad arguments and unreadable files are a clear message and exit 2", arguments: [
        (["store", "add", "--type", "nonsense", "--value", "1"], "unknown type"),
        (["store", "add", "--type", "stepCount", "--value", "1", "--unit", "kg"], "does not fit"),
        (["store", "add", "--type", "stepCount", "--value", "1", "--unit", "kg//m"], "invalid unit"),
        (["store", "add", "--type", "stepCount", "--value", "1", "--start", "yesterday-ish"], "invalid date"),
        (["store", "stats", "--type", "heartRate", "--statistic", "sum"], "not cumulative"),
        (["store", "stats", "--type", "stepCount", "--interval", "fortnight"], "invalid interval"),
        (["store", "delete", "--type", "stepCount"], "--all"),
        (["store", "import", "/nonexistent/file.csv"], "cannot read"),
    ])
    func badInput(_ arguments: [String], _ message: String) async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let result = try await runner.run(arguments)
        #expect(result.status == 2)
        #expect(result.error.contains(message), "stderr was: \(result.error)")
    }

    @Test("A value the store refuses exits 1")
    func refusedValue() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let result = try await runner.run(["store", "add", "--type", "sleepAnalysis", "--value", "42"])
        #expect(result.status == 1)
        #expect(result.error.contains("'42' is not a value of Sleep Analysis: use one of inBed, asleepUnspecified, awake, asleepCore, asleepDeep, asleepREM"),
                "stderr was: \(result.error)")
    }

    @Test("A wrong passphrase is refused with a clear message and the data stays readable")
    func wrongPassphrase() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let right = ["HK_PASS": "first passphrase"]
        #expect(try await runner.run(["store", "add", "--passphrase-env", "HK_PASS", "--type", "stepCount", "--value", "5"], environment: right).status == 0)
        let wrong = try await runner.run(["store", "query", "--passphrase-env", "HK_PASS", "--type", "stepCount"], environment: ["HK_PASS": "other"])
        #expect(wrong.status == 1 && wrong.error.contains("does not open"))
        let again = try await runner.run(["store", "query", "--passphrase-env", "HK_PASS", "--type", "stepCount", "--json"], environment: right)
        #expect(again.status == 0 && again.output.contains("\"value\" : 5"))
    }

    @Test("import reads CSV and JSON Lines and names the bad line")
    func importFiles() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let csv = runner.folder.appendingPathComponent("steps.csv")
        try "type,start,end,value,unit\nstepCount,2026-11-20T08:00:00Z,2026-11-20T09:00:00Z,1200,count\nheartRate,2026-11-20T08:00:00Z,,61,count/min\n"
            .write(to: csv, atomically: true, encoding: .utf8)
        let imported = try await runner.run(["store", "import", csv.path])
        #expect(imported.status == 0 && imported.output.contains("stored 2 new samples"))
        let lines = runner.folder.appendingPathComponent("bad.jsonl")
        try "{\"type\":\"stepCount\",\"start\":\"2026-11-20T10:00:00Z\",\"value\":3}\n{\"type\":\"stepCount\",\"start\":\"oops\",\"value\":3}\n"
            .write(to: lines, atomically: true, encoding: .utf8)
        let bad = try await runner.run(["store", "import", lines.path])
        #expect(bad.status == 1 && bad.error.contains("line 2"))
        // The bad line is not stored; the good one is (importing the corrected file again adds only what is missing).
        let count = try await runner.run(["store", "query", "--type", "stepCount", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(count.output.utf8)) as? [Any])?.count == 2)
    }

    @Test("SIGKILL during a large import keeps whole batches only, and the store stays readable")
    func killDuringImport() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = runner.folder.appendingPathComponent("big.jsonl")
        var text = ""
        let base = Date(timeIntervalSince1970: 1_760_000_000)
        let formatter = ISO8601DateFormatter()
        for index in 0..<200_000 {
            let start = formatter.string(from: base.addingTimeInterval(Double(index) * 60))
            text += "{\"type\":\"heartRate\",\"start\":\"\(start)\",\"value\":\(60 + index % 40)}\n"
        }
        try text.write(to: file, atomically: true, encoding: .utf8)
        let batch = 1_000
        // Kill the import once it reports three committed batches (`--progress` prints a line to
        // standard error after each commit), read on a Dispatch thread so a busy cooperative
        // pool cannot delay the kill. If the import still wins the race on a loaded machine,
        // the store is removed and the run repeated (up to 5 times).
        var seen = 0
        var killed = false
        for _ in 0..<5 where !killed {
            try? FileManager.default.removeItem(atPath: runner.store)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: runner.store + suffix) }
            let (process, _, error) = try runner.launch(["store", "import", file.path, "--batch-size", "\(batch)", "--progress"])
            seen = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var committed = 0
                    var pending = Data()
                    let reader = error.fileHandleForReading
                    reading: while true {
                        let chunk = reader.availableData
                        if chunk.isEmpty { break }   // the import ended
                        pending.append(chunk)
                        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                            pending.removeSubrange(pending.startIndex...newline)
                            if line.hasPrefix("Imported "), let count = Int(line.dropFirst(9).prefix { $0 != "/" }) {
                                committed = count
                                if committed >= 3 * batch {
                                    kill(process.processIdentifier, SIGKILL)
                                    break reading
                                }
                            }
                        }
                    }
                    process.waitUntilExit()
                    continuation.resume(returning: committed)
                }
            }
            killed = process.terminationReason == .uncaughtSignal
        }
        #expect(killed, "the import always finished before it could be interrupted; make the file larger")

        let reopened = HKHealthStore(configuration: .init(location: .file(URL(fileURLWithPath: runner.store)),
                                                          key: .keyFile(runner.folder.appendingPathComponent("health.key")),
                                                          role: .owner))
        let samples = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
                                                        sortDescriptors: [SortDescriptor(\.startDate)], limit: nil).result(for: reopened)
        #expect(samples.count >= seen && samples.count < 200_000)
        #expect(samples.count % batch == 0, "a half-written batch is visible: \(samples.count)")
        // Committed samples are whole and in order: the first N lines, every value intact.
        for (index, sample) in samples.enumerated() where index % 997 == 0 {
            #expect(sample.startDate == base.addingTimeInterval(Double(index) * 60))
            #expect(abs(sample.quantity.doubleValue(for: HKUnit(from: "count/min")) - Double(60 + index % 40)) < 1e-9)
        }
        // The store accepts new writes after the crash.
        try await reopened.save(HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 1),
                                                 start: Date(), end: Date()))
    }
}

@Suite("Anchored sync across processes")
struct CrossProcessSyncTests {
    @Test("An anchor archived to disk sees additions and deletions made by other processes")
    func anchorAcrossProcesses() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let configuration = HKHealthStore.Configuration(location: .file(URL(fileURLWithPath: runner.store)),
                                                        key: .keyFile(runner.folder.appendingPathComponent("health.key")), role: .owner)
        let anchorFile = runner.folder.appendingPathComponent("anchor.archive")
        var firstUUID = ""
        do {
            let store = HKHealthStore(configuration: configuration)
            let start = Date(timeIntervalSince1970: 1_763_000_000)
            let samples = (0..<3).map { index in
                HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: Double(100 + index)),
                                 start: start.addingTimeInterval(Double(index) * 600), end: start.addingTimeInterval(Double(index) * 600 + 60))
            }
            try await store.save(samples)
            let result = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                                   anchor: nil).result(for: store)
            #expect(result.addedSamples.count == 3)
            try NSKeyedArchiver.archivedData(withRootObject: result.newAnchor, requiringSecureCoding: true).write(to: anchorFile)
            firstUUID = samples[0].uuid.uuidString
        }
        // Other processes change the store.
        #expect(try await runner.run(["store", "delete", "--uuid", firstUUID]).status == 0)
        #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "777", "--start", "2026-11-20T08:00:00Z"]).status == 0)
        // A fresh store object resumes from the archived anchor.
        let resumed = HKHealthStore(configuration: configuration)
        let anchor = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: Data(contentsOf: anchorFile)))
        let changes = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                                anchor: anchor).result(for: resumed)
        #expect(changes.deletedObjects.map(\.uuid.uuidString) == [firstUUID])
        #expect(changes.addedSamples.map { $0.quantity.doubleValue(for: .count()) } == [777])
        let after = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                              anchor: changes.newAnchor).result(for: resumed)
        #expect(after.addedSamples.isEmpty && after.deletedObjects.isEmpty)
    }
}
