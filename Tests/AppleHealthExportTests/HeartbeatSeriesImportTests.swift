@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Apple Health export: per-beat heart rate variability lists as heartbeat series", .timeLimit(.minutes(5)))
struct HeartbeatSeriesImportTests {
    /// An export with one HRV reading whose beats cross midnight, as an Apple Watch writes them.
    static func export() -> String {
        var generator = AppleHealthExportGenerator()
        generator.heartRateVariability(value: "48.5", device: "&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, model:Watch, hardware:Watch6,1&gt;",
                                       start: "2020-10-03 23:59:58 -0400", end: "2020-10-04 00:00:58 -0400",
                                       beats: [(66, "11:59:59.03 PM"), (68, "11:59:59.91 PM"), (64, "12:00:00.85 AM"), (70, "12:00:01.71 AM")])
        return generator.document()
    }

    static func heartbeats(_ store: HKHealthStore, _ series: HKHeartbeatSeriesSample) async throws -> [TimeInterval] {
        let inbox = Inbox<TimeInterval>()
        return try await withCheckedThrowingContinuation { continuation in
            store.execute(HKHeartbeatSeriesQuery(heartbeatSeries: series) { _, time, _, done, error in
                if let error { continuation.resume(throwing: error); return }
                inbox.append(time)
                if done { continuation.resume(returning: inbox.values) }
            })
        }
    }

    @Test("The beats become one heartbeat series from the record's start; a second import stores nothing new")
    func importsHeartbeats() async throws {
        let url = try AppleHealthImporterTests.write(Self.export())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let report = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(report.imported[HKDataTypeIdentifierHeartbeatSeries] == 1)
        #expect(report.imported[HKQuantityTypeIdentifier.heartRateVariabilitySDNN.rawValue] == 1)
        // Nothing of the record is left unimported (the default Me's extra characteristic is another matter).
        #expect(report.skipped.keys.filter { $0.contains("HeartRateVariability") || $0.contains("Beats") }.isEmpty, "\(report.skipped)")

        let series = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKSeriesType.heartbeat())], sortDescriptors: []).result(for: store)
        #expect(series.count == 1)
        let sample = try #require(series.first as? HKHeartbeatSeriesSample)
        #expect(sample.count == 4)
        let start = try #require(ISO8601DateFormatter().date(from: "2020-10-04T03:59:58Z"))
        #expect(sample.startDate == start)
        let times = try await Self.heartbeats(store, sample)
        let expected: [TimeInterval] = [1.03, 1.91, 2.85, 3.71]
        #expect(times.count == 4)
        #expect(zip(times, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(times)")

        _ = try await AppleHealthImporter().importExport(at: url, into: store)
        let again = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKSeriesType.heartbeat())], sortDescriptors: []).result(for: store)
        #expect(again.map(\.uuid) == series.map(\.uuid))
    }

    static let clockTimes: [(String, Double)] = [
        ("7:48:07.51 AM", 28_087.51), ("12:00:00.5 AM", 0.5), ("12:30:00 PM", 45_000), ("19:48:07.5", 71_287.5),
    ]

    @Test("Beat times in 12- and 24-hour forms", arguments: clockTimes)
    func times(text: String, seconds: Double) {
        #expect(HeartbeatListReader.secondsOfDay(time: text).map { abs($0 - seconds) < 1e-9 } == true)
        // With a narrow no-break space before AM/PM (as recent iOS writes it) and spaces or tabs around.
        let spaced = " \t" + text.replacingOccurrences(of: " ", with: "\u{202F}") + "\u{00A0} "
        #expect(HeartbeatListReader.secondsOfDay(time: spaced).map { abs($0 - seconds) < 1e-9 } == true)
    }

    @Test("Beat times are trimmed as trimmingCharacters(in: .whitespaces) trims them")
    func trimmedAsFoundation() {
        let pieces: [String] = [" ", "\t", "\n", "\r", "\u{00A0}", "\u{2009}", "\u{202F}", "\u{3000}", "\u{200B}", "\u{301}", "7", ":", "AM", "é", "🫀"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? " " }.joined()
            #expect(HeartbeatListReader.trimmed(Substring(text)) == text.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
        }
    }
}
