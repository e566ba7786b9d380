import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// The look of `health ui` in real headless Chromium (scripts/ui-look.py): every page at 1280 and
/// 390 px in the light and the dark theme, with no console error or foreign request, no sideways
/// scroll at 390 px, no text under 11 CSS px and no text under 4.5:1 contrast, every cell of
/// Today's trends on screen, no chart text overlapping other text or leaving its chart, no table
/// cell hidden, clipped or cut off (a table fits or scrolls in its own box); Today's numbers
/// against the statistics API (the last day with data while today has none); screenshots of
/// Today, a type page (its week and its year), Records, sleep, workouts, the year's Summary and a
/// lab result in .build/ui-screenshots.
@Suite("health ui look", .serialized) struct UILookTests {
    @Test("every page at 1280 and 390 px, light and dark: no console error, no sideways scroll, text ≥ 11 px, 4.5:1, chart text apart, cells whole",
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func look() async throws {
        let python = try #require(UICommandTests.browser)
        let running = try await UICommandTests.Running.start()
        defer { running.stop() }
        try await Self.saveECGAndMood(running)
        let (expected, days) = try await Self.today(running)
        #expect(expected[HKQuantityTypeIdentifier.heartRate.rawValue, default: -1] > 0)
        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let typePath = "/browse/HKQuantityTypeIdentifierStepCount"
        let expectedJSON = String(decoding: try JSONSerialization.data(withJSONObject: expected), as: UTF8.self)
        let errors = running.runner.folder.appendingPathComponent("ui-look.log")
        let arguments = [UICommandTests.packageRoot.appendingPathComponent("scripts/ui-look.py").path, running.startURL, shots.path,
                         expectedJSON, typePath]
        let output = try await UICommandTests.runBrowserScript(python, arguments, errors: errors)
        #expect(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        let pages = report["pages"] as? [String: [String: Any]] ?? [:]
        #expect(report["labPath"] as? String != nil, "Records lists no lab result")
        #expect(pages.count == 18 * 4)
        #expect(report["trendRows"] as? Int ?? 0 > 0, "Today shows no trends: the 390 px check of its table would see nothing")
        for (key, result) in pages {
            #expect(result["status"] as? Int == 200, "\(key)")
            #expect((result["problems"] as? [String])?.isEmpty == true, "\(key): \(result["problems"] ?? "")")
            #expect((result["smallText"] as? [String])?.isEmpty == true, "\(key): \(result["smallText"] ?? "")")
            #expect((result["lowContrast"] as? [String])?.isEmpty == true, "\(key): \(result["lowContrast"] ?? "")")
            #expect(result["scripts"] as? Int == 0, "\(key)")
            if key.contains(" 390 ") { #expect(result["overflow"] as? Bool == false, "\(key) scrolls sideways") }
            let charts = result["chartText"] as? [String: Any] ?? [:], tables = result["tableCells"] as? [String: Any] ?? [:]
            #expect((charts["problems"] as? [String])?.isEmpty == true, "\(key): chart text: \(charts["problems"] ?? "")")
            #expect((tables["problems"] as? [String])?.isEmpty == true, "\(key): table cells: \(tables["problems"] ?? "")")
            if key.hasPrefix("/summary") || key.hasPrefix("\(typePath)?period=year ") {
                #expect(charts["labels"] as? Int ?? 0 > 6, "\(key): the chart text was not measured")
            }
            if key.hasPrefix("/summary") || key.hasPrefix("/browse/HKWorkoutTypeIdentifier ") || key.hasPrefix("/records ") {
                #expect(tables["cells"] as? Int ?? 0 > 5, "\(key): the table cells were not measured")
            }
            if key.hasPrefix("/ ") { #expect((result["offScreen"] as? [String])?.isEmpty == true, "\(key): trends off screen: \(result["offScreen"] ?? "")") }
        }
        let today = report["today"] as? [String: Any] ?? [:]
        for (kind, value) in expected {
            let shown = (today[kind] as? String).flatMap(Double.init)
            #expect(shown.map { abs($0 - value) < 0.01 } == true, "\(kind): page \(String(describing: today[kind])), statistics \(value)")
            if let day = days[kind] { #expect(today["\(kind) day"] as? String == day, "\(kind): the day the total counts") }
        }
        #expect((report["screenshots"] as? [String])?.count == 10 * 4)
    }

    /// A 30-second ECG (a beat a second at 512 Hz) and a state of mind an hour ago, which the demo
    /// store has none of, for the ECG page (with its trace) and the state of mind page.
    static func saveECGAndMood(_ running: UICommandTests.Running) async throws {
        let store = HKHealthStore(configuration: .init(location: .file(running.database), key: .keyFile(running.keyFile), role: .owner))
        try store.open()
        let start = Date().addingTimeInterval(-3600)
        let microvolts = (0..<(30 * 512)).map { index -> Float in
            let t = Double(index % 512) / 512
            func wave(_ at: Double, _ width: Double, _ height: Double) -> Double { height * exp(-pow((t - at) / width, 2)) }
            return Float(wave(0.2, 0.04, 120) - wave(0.33, 0.008, 150) + wave(0.35, 0.012, 1100) - wave(0.38, 0.01, 250) + wave(0.6, 0.06, 300))
        }
        try await store.save(try HKElectrocardiogram(start: start, end: start.addingTimeInterval(30), classification: .sinusRhythm,
                                                     symptomsStatus: .none,
                                                     averageHeartRate: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 60),
                                                     samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                                     microvolts: [.appleWatchSimilarToLeadI: microvolts], device: nil, metadata: nil))
        try await store.save(HKStateOfMind(date: start, kind: .dailyMood, valence: 0.4, labels: [.content, .grateful],
                                           associations: [.family, .currentEvents]))
    }

    /// Today's steps and exercise minutes (the statistics API's sums, sources merged; while today
    /// has no samples, as early in the day the demo has none yet, the sum of the last day with
    /// samples) with the day each counts, and the newest heart rate, from the same store (UTC, as
    /// the process runs).
    static func today(_ running: UICommandTests.Running) async throws -> (values: [String: Double], days: [String: String]) {
        let store = HKHealthStore(configuration: .init(location: .file(running.database), key: .keyFile(running.keyFile), role: .owner))
        try store.open()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let start = calendar.startOfDay(for: Date())
        var expected: [String: Double] = [:]
        var days: [String: String] = [:]
        for (identifier, unit) in [(HKQuantityTypeIdentifier.stepCount, HKUnit.count()), (.appleExerciseTime, .minute())] {
            let type = HKQuantityType(identifier)
            var day = start
            var sum = try await sum(of: type, on: day, in: store)
            if sum == nil {
                let before = HKQuery.predicateForSamples(withStart: nil, end: start, options: .strictStartDate)
                let newest = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: type, predicate: before)],
                                                               sortDescriptors: [SortDescriptor(\HKQuantitySample.startDate, order: .reverse)],
                                                               limit: 1).result(for: store).first
                guard let newest else { continue }
                day = calendar.startOfDay(for: newest.startDate)
                sum = try await self.sum(of: type, on: day, in: store)
            }
            guard let sum else { continue }
            expected[identifier.rawValue] = (sum.doubleValue(for: unit) * 100).rounded() / 100
            days[identifier.rawValue] = ISO8601DateFormatter.string(from: day, timeZone: calendar.timeZone, formatOptions: [.withFullDate])
        }
        let heart = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
                                                      sortDescriptors: [SortDescriptor(\HKQuantitySample.startDate, order: .reverse)],
                                                      limit: 1).result(for: store)
        if let newest = heart.first {
            expected[HKQuantityTypeIdentifier.heartRate.rawValue] = newest.quantity.doubleValue(for: .count().unitDivided(by: .minute()))
        }
        return (expected, days)
    }

    /// A day's sum of `type`, sources merged (nil without samples that day).
    static func sum(of type: HKQuantityType, on day: Date, in store: HKHealthStore) async throws -> HKQuantity? {
        let range = HKQuery.predicateForSamples(withStart: day, end: day.addingTimeInterval(86_400))
        return try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: type, predicate: range), options: .cumulativeSum)
            .result(for: store)?.sumQuantity()
    }
}
