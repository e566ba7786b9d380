import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// A person's data tasks in `health ui`, in real headless Chromium (scripts/ui-data.py): a weight
/// added in lb reads in kg after switching units; Browse's search box; delete through the
/// confirmation page and restore; an Apple Health export.zip imported from the page as a job that
/// finishes on its summary, and imported again (0 new, all already in the store); the Medical ID edited and read after a reload; and the look of those
/// pages at 1280 and 390 px, light and dark. Screenshots in .build/ui-screenshots (data-*.png).
@Suite("health ui data tasks", .serialized) struct UIDataTests {
    /// The Me of the demo store's owner (Antonio Castellanos, born 1991-06-08): the import checks the export is theirs.
    static let demoOwnersMe = """
        <Me HKCharacteristicTypeIdentifierDateOfBirth="1991-06-08" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexMale" \
        HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"/>
        """

    /// Add a weight in lb and see it in kg after switching units; search Browse; delete with
    /// confirmation and restore; import an Apple Health export from the page, watch the job finish,
    /// import it again (0 new); edit the Medical ID and see it after reload; every page used at 1280
    /// and 390 px, light and dark, is clean.
    @Test("a person's data tasks in Chromium: add, search, delete and restore, import twice, Medical ID; every page clean",
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func dataTasks() async throws {
        let python = try #require(UICommandTests.browser)
        let running = try await UICommandTests.Running.start()
        defer { running.stop() }
        let export = running.runner.folder.appendingPathComponent("export.zip")
        let generated = AppleHealthExportGenerator.full()
        try AppleHealthExportGenerator.writeZip(to: export, exportXML: Data(generated.document(me: Self.demoOwnersMe).utf8),
                                                files: [("clinical-records/" + AppleHealthExportGenerator.clinicalRecord.name,
                                                         Data(AppleHealthExportGenerator.clinicalRecord.json.utf8)),
                                                        ("workout-routes/" + AppleHealthExportGenerator.fullRoute.name,
                                                         Data(AppleHealthExportGenerator.gpx(AppleHealthExportGenerator.fullRoute.points).utf8))])
        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let errors = running.runner.folder.appendingPathComponent("ui-data.log")
        let output = try await UICommandTests.runBrowserScript(
            python, [UICommandTests.packageRoot.appendingPathComponent("scripts/ui-data.py").path, running.startURL, shots.path, export.path],
            errors: errors)
        #expect(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        func object(_ key: String) -> [String: Any] { report[key] as? [String: Any] ?? [:] }

        let added = object("added")
        #expect((added["notice"] as? String)?.hasPrefix("Saved Weight: 220.5 lb, ") == true, "\(added)")
        #expect((added["kgCells"] as? [String])?.count == 1, "\(added)")
        #expect((added["lbCells"] as? [String])?.isEmpty == true, "\(added)")
        let refused = object("refused")
        #expect((refused["problem"] as? String)?.contains("'heavy' is not a number") == true && refused["value"] as? String == "heavy", "\(refused)")

        let search = object("search")
        #expect((search["url"] as? String)?.hasSuffix("/browse?q=weight") == true, "\(search)")
        #expect(search["groups"] as? [String] == ["Body Measurements"], "\(search)")
        #expect(search["weight"] as? String == "100 kg", "\(search)")

        let delete = object("delete")
        #expect((delete["url"] as? String)?.contains("/delete?uuid=") == true && delete["rows"] as? Int == 1, "\(delete)")
        #expect((delete["heading"] as? String)?.hasPrefix("Delete ") == true, "\(delete)")
        #expect((delete["after"] as? String)?.hasPrefix("Deleted 1 sample(s).") == true, "\(delete)")
        #expect((delete["rowsAfter"] as? Int).map { $0 + 1 } == delete["rowsBefore"] as? Int, "\(delete)")
        #expect(delete["restored"] as? String == "Restored 1 sample: it is back in Browse.", "\(delete)")
        #expect(delete["rowsRestored"] as? Int == delete["rowsBefore"] as? Int, "\(delete)")

        let imported = object("import")
        #expect((imported["jobURL"] as? String)?.contains("/jobs/") == true, "\(imported)")
        #expect((imported["notice"] as? String)?.hasPrefix("Imported ") == true, "\(imported)")
        #expect(imported["heading"] as? String == "Import of export.zip", "\(imported)")
        #expect((imported["headline"] as? String)?.contains("; 0 already in the store; ") == true, "\(imported)")
        let rows = imported["rows"] as? [[String]] ?? []
        #expect(rows.contains(["Weight", "1", "0"]) && rows.contains(["Workouts", "1", "0"]), "\(rows)")
        // The same export again: 0 new, every sample already in the store (the CLI's words), and
        // the uploads' temporary files (beside the store) removed when their jobs ended.
        let again = object("importAgain")
        #expect((again["jobURL"] as? String)?.contains("/jobs/") == true, "\(again)")
        // What the first import stored or found already stored, all found already stored now.
        let stored = rows.compactMap { $0.count == 3 ? (Int($0[1]) ?? 0) + (Int($0[2]) ?? 0) : nil }.reduce(0, +)
        #expect(stored > 0 && (again["headline"] as? String)?.hasPrefix("Imported 0 samples in ") == true, "\(again)")
        #expect((again["headline"] as? String)?.contains("; \(stored) already in the store; ") == true, "\(again) \(rows)")
        #expect((again["notice"] as? String)?.hasPrefix(again["headline"] as? String ?? "-") == true, "\(again)")
        let againRows = again["rows"] as? [[String]] ?? []
        #expect(againRows.contains(["Weight", "0", "1"]) && againRows.contains(["Workouts", "0", "1"]), "\(againRows)")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: running.database.deletingLastPathComponent().path)) ?? []
        #expect(!leftovers.contains { $0.hasPrefix("health-ui-export-") }, "\(leftovers)")

        let medical = object("medicalID")
        #expect(medical["notice"] as? String == "Profile saved.", "\(medical)")
        let fields = medical["fields"] as? [String: String] ?? [:]
        #expect(fields["Medical conditions"] == "Asthma; Hay fever" && fields["Allergies and reactions"] == "Penicillin", "\(fields)")
        #expect(fields["Organ donor"] == "Yes" && fields["Emergency contacts"]?.contains("Orlando Quarrington (brother): +1 555 0199") == true, "\(fields)")
        #expect(medical["conditions"] as? String == "Asthma\nHay fever", "\(medical)")

        // The job's page as it first came (its progress, or already its summary) passes the page checks too.
        let jobLook = object("jobLook")
        #expect((jobLook["url"] as? String)?.hasPrefix("/jobs/") == true, "\(jobLook)")
        #expect((jobLook["problems"] as? [String])?.isEmpty == true && (jobLook["smallText"] as? [String])?.isEmpty == true, "\(jobLook)")
        #expect(jobLook["overflow"] as? Bool == false && jobLook["scripts"] as? Int == 0, "\(jobLook)")
        let look = object("look")
        // Ten pages and the delete confirmation page, at two widths in two themes; the import's
        // summary is the job's own page (/jobs/ID).
        #expect(look.count == 11 * 4)
        #expect(look.keys.contains("delete-confirm 390 dark") && look.keys.contains("import-summary 390 light"), "\(look.keys.sorted())")
        #expect((imported["url"] as? String)?.contains("/jobs/") == true, "\(imported)")
        for (key, value) in look {
            let result = value as? [String: Any] ?? [:]
            #expect(result["status"] as? Int == 200, "\(key)")
            #expect((result["problems"] as? [String])?.isEmpty == true, "\(key): \(result["problems"] ?? "")")
            #expect((result["smallText"] as? [String])?.isEmpty == true, "\(key): \(result["smallText"] ?? "")")
            #expect((result["lowContrast"] as? [String])?.isEmpty == true, "\(key): \(result["lowContrast"] ?? "")")
            #expect(result["scripts"] as? Int == 0, "\(key)")
            if key.contains(" 390 ") { #expect(result["overflow"] as? Bool == false, "\(key) scrolls sideways") }
        }
        #expect((report["screenshots"] as? [String])?.count == 12)
    }

    /// What Today and the walks through time should show, from the statistics API over the same
    /// store (UTC, as the process runs): the JSON `scripts/ui-data.py --today` reads, and the
    /// numbers the test compares its report with.
    struct TimeExpectations {
        /// Today's cards by kind: the number (in the unit shown) and the day a total counts.
        var today: [String: (value: Double, day: String?)] = [:]
        /// Each walk's start page, chart, links followed, and at each step the period shown and the bars.
        var walks: [(start: String, chart: String, follow: [String], steps: [(range: String, bars: [Double])])] = []

        var json: Data {
            get throws {
                let walks: [[String: Any]] = self.walks.map { ["start": $0.start, "chart": $0.chart, "follow": $0.follow] }
                return try JSONSerialization.data(withJSONObject: ["today": Array(today.keys).sorted(), "walks": walks])
            }
        }
    }

    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }

    static func day(_ date: Date) -> String {
        ISO8601DateFormatter.string(from: date, timeZone: utc.timeZone, formatOptions: [.withFullDate])
    }

    /// The sums of `type` in `unit` per `bucket` over `interval`, the buckets without data left out
    /// (as the charts leave out their bars), all sources merged.
    static func sums(_ type: HKQuantityType, _ unit: HKUnit, _ interval: DateInterval, _ bucket: DateComponents,
                     in store: HKHealthStore) async throws -> [Double] {
        let collection = try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: type, predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
            options: .cumulativeSum, anchorDate: interval.start, intervalComponents: bucket).result(for: store)
        var sums: [Double] = []
        collection.enumerateStatistics(from: interval.start, to: interval.end.addingTimeInterval(-1)) { statistics, _ in
            if let sum = statistics.sumQuantity() { sums.append(sum.doubleValue(for: unit)) }
        }
        return sums
    }

    /// Today's cards and the walks (a week and a year back and forth on Summary's steps and on
    /// the distance page) as the statistics API gives them.
    static func timeExpectations(_ running: UICommandTests.Running) async throws -> TimeExpectations {
        let store = HKHealthStore(configuration: .init(location: .file(running.database), key: .keyFile(running.keyFile), role: .owner))
        try store.open()
        let calendar = utc
        let today = calendar.startOfDay(for: Date())
        let tomorrow = today.addingTimeInterval(86_400)
        var expected = TimeExpectations()
        // Totals: today's sum, or while today has none the last day with samples.
        let totals: [(HKQuantityTypeIdentifier, HKUnit)] = [(.stepCount, .count()), (.distanceWalkingRunning, .meterUnit(with: .kilo)),
                                                           (.activeEnergyBurned, .kilocalorie()), (.appleExerciseTime, .minute())]
        for (identifier, unit) in totals {
            let type = HKQuantityType(identifier)
            let before = HKQuery.predicateForSamples(withStart: nil, end: tomorrow, options: .strictStartDate)
            let newest = try #require(try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: type, predicate: before)],
                                                                        sortDescriptors: [SortDescriptor(\HKQuantitySample.startDate, order: .reverse)],
                                                                        limit: 1).result(for: store).first, "\(identifier.rawValue)")
            let day = calendar.startOfDay(for: newest.startDate)
            let sum = try await sums(type, unit, DateInterval(start: day, end: day.addingTimeInterval(86_400)), DateComponents(day: 1), in: store)
            expected.today[identifier.rawValue] = (try #require(sum.first), Self.day(day))
        }
        // Last night: the hours asleep (every stage but awake and in bed) of the night ending today.
        let nightSamples = try await HKSampleQueryDescriptor(
            predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis),
                                         predicate: HKQuery.predicateForSamples(withStart: today.addingTimeInterval(-6 * 3600),
                                                                                end: tomorrow.addingTimeInterval(-6 * 3600), options: .strictStartDate))],
            sortDescriptors: []).result(for: store)
        let asleep = Set(HKCategoryValueSleepAnalysis.allAsleepValues.map(\.rawValue))
        let hours = nightSamples.filter { asleep.contains($0.value) }.map { $0.endDate.timeIntervalSince($0.startDate) / 3600 }.reduce(0, +)
        expected.today["sleep"] = (hours, Self.day(today))
        for (identifier, unit) in [(HKQuantityTypeIdentifier.heartRate, HKUnit.count().unitDivided(by: .minute())),
                                   (.restingHeartRate, HKUnit.count().unitDivided(by: .minute())), (.bodyMass, .gramUnit(with: .kilo))] {
            let newest = try #require(try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(identifier))],
                                                                        sortDescriptors: [SortDescriptor(\HKQuantitySample.startDate, order: .reverse)],
                                                                        limit: 1).result(for: store).first)
            expected.today[identifier.rawValue] = (newest.quantity.doubleValue(for: unit), nil)
        }
        // The week ending today, the one before it, and back; the twelve months ending this one, the twelve before, and back.
        let week = DateInterval(start: today.addingTimeInterval(-6 * 86_400), end: tomorrow)
        let weekBefore = DateInterval(start: today.addingTimeInterval(-13 * 86_400), end: week.start)
        let month = try #require(calendar.dateInterval(of: .month, for: today)).start
        let year = DateInterval(start: try #require(calendar.date(byAdding: .month, value: -11, to: month)), end: tomorrow)
        let yearBefore = DateInterval(start: try #require(calendar.date(byAdding: .month, value: -23, to: month)), end: year.start)
        func range(_ interval: DateInterval) -> String { "\(day(interval.start)) to \(day(interval.end.addingTimeInterval(-1)))" }
        let walks: [(String, String, HKQuantityType, HKUnit)] = [
            ("/summary", "steps-svg-title", HKQuantityType(.stepCount), .count()),
            ("/browse/HKQuantityTypeIdentifierDistanceWalkingRunning", "type-svg-title", HKQuantityType(.distanceWalkingRunning), .meterUnit(with: .kilo)),
        ]
        for (page, chart, type, unit) in walks {
            for (period, name, intervals, bucket) in [("week", "week", [week, weekBefore, week], DateComponents(day: 1)),
                                                      ("year", "year", [year, yearBefore, year], DateComponents(month: 1))] {
                var steps: [(range: String, bars: [Double])] = []
                for interval in intervals { steps.append((range(interval), try await sums(type, unit, interval, bucket, in: store))) }
                expected.walks.append((start: "\(page)?period=\(period)", chart: chart, follow: ["Previous \(name)", "Next \(name)"], steps: steps))
            }
        }
        return expected
    }

    /// Today on a year of demo data shows the statistics API's numbers, in every card (no "–");
    /// stepping a week and a year back and forth on Summary and on a type page shows the period
    /// and the bars the statistics give for it; every page passes the page checks.
    @Test("Today on a year of demo data shows the statistics; Summary and a type page stepped a week and a year back and forth show each period's (Chromium)",
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func todayAndTime() async throws {
        let python = try #require(UICommandTests.browser)
        let running = try await UICommandTests.Running.start(days: 365)
        defer { running.stop() }
        let expected = try await Self.timeExpectations(running)
        let expectedFile = running.runner.folder.appendingPathComponent("expected-time.json")
        try expected.json.write(to: expectedFile)
        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let errors = running.runner.folder.appendingPathComponent("ui-data-time.log")
        let output = try await UICommandTests.runBrowserScript(
            python, [UICommandTests.packageRoot.appendingPathComponent("scripts/ui-data.py").path, running.startURL, shots.path,
                     "--today", expectedFile.path],
            errors: errors)
        #expect(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        let today = report["today"] as? [String: [String: Any]] ?? [:]
        #expect(today.count == 8)
        for (kind, value) in expected.today {
            let shown = (today[kind]?["value"] as? String).flatMap(Double.init)
            #expect(shown.map { abs($0 - value.value) < 0.006 } == true, "\(kind): page \(today[kind] ?? [:]), statistics \(value.value)")
            if let day = value.day { #expect(today[kind]?["day"] as? String == day, "\(kind): the day it counts") }
        }
        #expect(report["todayDashes"] as? Int == 0, "a card without a value")
        for key in ["todayLook", "todayLook-1280", "todayLook-390"] {
            let look = report[key] as? [String: Any] ?? [:]
            #expect((look["problems"] as? [String])?.isEmpty == true && (look["smallText"] as? [String])?.isEmpty == true, "\(key): \(look)")
            #expect(look["overflow"] as? Bool == false, "\(key) scrolls sideways")
        }
        let walks = report["walks"] as? [[[String: Any]]] ?? []
        #expect(walks.count == expected.walks.count)
        for (walk, shown) in zip(expected.walks, walks) {
            #expect(shown.count == walk.steps.count, "\(walk.start)")
            for (index, (step, page)) in zip(walk.steps, shown).enumerated() {
                let label = "\(walk.start), step \(index)"
                #expect(page["status"] as? Int == 200, "\(label)")
                #expect(page["range"] as? String == step.range, "\(label): \(page["url"] ?? "")")
                let bars = page["bars"] as? [Double] ?? []
                #expect(!step.bars.isEmpty || index == 1, "\(label): the statistics have no data")
                #expect(bars.count == step.bars.count && zip(bars, step.bars).allSatisfy { abs($0 - $1) < 0.006 },
                        "\(label): bars \(bars), statistics \(step.bars)")
                #expect((page["problems"] as? [String])?.isEmpty == true && (page["smallText"] as? [String])?.isEmpty == true, "\(label): \(page)")
            }
        }
    }
}
