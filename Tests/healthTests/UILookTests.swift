import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// The look of `health ui` in real headless Chromium (scripts/ui-look.py): every page at 1280 and
/// 390 px in the light and the dark theme, with no console error or foreign request, no sideways
/// scroll at 390 px, no text under 11 CSS px and no text under 4.5:1 contrast; Today's numbers
/// against the statistics API; screenshots of Today, a type page and Records in .build/ui-screenshots.
@Suite("health ui look", .serialized) struct UILookTests {
    @Test("every page at 1280 and 390 px, light and dark: no console error, no foreign request, no sideways scroll, text ≥ 11 px with contrast ≥ 4.5:1; Today equals the statistics",
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func look() async throws {
        let python = try #require(UICommandTests.browser)
        let running = try await UICommandTests.Running.start()
        defer { running.stop() }
        let expected = try await Self.today(running)
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
        #expect(pages.count == 12 * 4)
        for (key, result) in pages {
            #expect(result["status"] as? Int == 200, "\(key)")
            #expect((result["problems"] as? [String])?.isEmpty == true, "\(key): \(result["problems"] ?? "")")
            #expect((result["smallText"] as? [String])?.isEmpty == true, "\(key): \(result["smallText"] ?? "")")
            #expect((result["lowContrast"] as? [String])?.isEmpty == true, "\(key): \(result["lowContrast"] ?? "")")
            #expect(result["scripts"] as? Int == 0, "\(key)")
            if key.contains(" 390 ") { #expect(result["overflow"] as? Bool == false, "\(key) scrolls sideways") }
        }
        let today = report["today"] as? [String: Any] ?? [:]
        for (kind, value) in expected {
            let shown = (today[kind] as? String).flatMap(Double.init)
            if value < 0 {
                #expect(shown == nil, "\(kind): the page shows \(String(describing: shown)) where the statistics have nothing today")
            } else {
                #expect(shown.map { abs($0 - value) < 0.01 } == true, "\(kind): page \(String(describing: today[kind])), statistics \(value)")
            }
        }
        #expect((report["screenshots"] as? [String])?.count == 12)
    }

    /// Today's steps and exercise minutes (the statistics API's sums, sources merged) and the newest
    /// heart rate, from the same store (UTC, as the process runs); -1 for a total with no samples
    /// today (early in the day, the demo has none yet).
    static func today(_ running: UICommandTests.Running) async throws -> [String: Double] {
        let store = HKHealthStore(configuration: .init(location: .file(running.database), key: .keyFile(running.keyFile), role: .owner))
        try store.open()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let start = calendar.startOfDay(for: Date())
        let today = HKQuery.predicateForSamples(withStart: start, end: start.addingTimeInterval(86_400))
        var expected: [String: Double] = [:]
        for (identifier, unit) in [(HKQuantityTypeIdentifier.stepCount, HKUnit.count()), (.appleExerciseTime, .minute())] {
            let statistics = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(identifier), predicate: today),
                                                                   options: .cumulativeSum).result(for: store)
            expected[identifier.rawValue] = statistics?.sumQuantity().map { ($0.doubleValue(for: unit) * 100).rounded() / 100 } ?? -1
        }
        let heart = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
                                                      sortDescriptors: [SortDescriptor(\HKQuantitySample.startDate, order: .reverse)], limit: 1).result(for: store)
        if let newest = heart.first {
            expected[HKQuantityTypeIdentifier.heartRate.rawValue] = newest.quantity.doubleValue(for: .count().unitDivided(by: .minute()))
        }
        return expected
    }
}
