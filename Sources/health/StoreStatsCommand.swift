import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store stats`: statistics per calendar interval, drawn as a bar chart.
struct StoreStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Statistics per interval (sum, average, min, max, most recent) with a bar chart.",
        discussion: """
            Intervals are calendar intervals in the local time zone, so a day across a daylight-saving change lasts 23 or 25 hours.
            Example: health store stats --type stepCount --interval day --from 2026-11-14
            """)

    enum Statistic: String, ExpressibleByArgument, CaseIterable {
        case sum, average, min, max, mostRecent = "most-recent"
    }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "A quantity type (stepCount, heartRate, bodyMass…).")
    var type: String

    @Option(help: "The interval: minute, hour, day, week, month, year, or a count and unit such as 15min, 6h, 2d.")
    var interval: String = "day"

    @Option(help: "The statistic: sum, average, min, max, most-recent (default: sum for cumulative types, average otherwise).")
    var statistic: Statistic?

    @Option(help: "The unit to show (default: the type's display unit).")
    var unit: String?

    @Option(help: "From this date (default: 7 days ago).")
    var from: String?

    @Option(help: "Up to this date (default: now).")
    var to: String?

    @Flag(help: "Print JSON.")
    var json = false

    mutating func run() async throws {
        guard let quantityType = try parseSampleType(type) as? HKQuantityType else {
            throw ValidationError("'\(type)' is not a quantity type; statistics need one (stepCount, heartRate…)")
        }
        let components = try parseInterval(interval)
        let statistic = self.statistic ?? (quantityType.aggregationStyle == .cumulative ? .sum : .average)
        let options: HKStatisticsOptions
        switch statistic {
        case .sum: options = .cumulativeSum
        case .average: options = .discreteAverage
        case .min: options = .discreteMin
        case .max: options = .discreteMax
        case .mostRecent: options = .mostRecent
        }
        if quantityType.aggregationStyle == .cumulative, statistic != .sum, statistic != .mostRecent {
            throw ValidationError("\(quantityType.displayName) is cumulative: use --statistic sum")
        }
        if quantityType.aggregationStyle != .cumulative, statistic == .sum {
            throw ValidationError("\(quantityType.displayName) is not cumulative: use average, min, max or most-recent")
        }
        let unit = try self.unit.map(parseUnit) ?? quantityType.defaultDisplayUnit
        guard quantityType.is(compatibleWith: unit) else {
            throw ValidationError("unit '\(unit.unitString)' does not fit \(quantityType.displayName)")
        }
        let end = try to.map(parseDate) ?? Date()
        let start = try from.map(parseDate) ?? Calendar.current.date(byAdding: .day, value: -7, to: end) ?? end
        guard end > start else { throw ValidationError("--to must be after --from") }
        let anchor = Calendar.current.startOfDay(for: start)
        let store = try storeOptions.openStore()
        let descriptor = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: quantityType, predicate: HKQuery.predicateForSamples(withStart: start, end: end)),
            options: options, anchorDate: anchor, intervalComponents: components)
        let collection = try await withActivity("Computing") { try await descriptor.result(for: store) }
        var rows: [(Date, Double?)] = []
        collection.enumerateStatistics(from: start, to: end) { statistics, _ in
            let quantity: HKQuantity?
            switch statistic {
            case .sum: quantity = statistics.sumQuantity()
            case .average: quantity = statistics.averageQuantity()
            case .min: quantity = statistics.minimumQuantity()
            case .max: quantity = statistics.maximumQuantity()
            case .mostRecent: quantity = statistics.mostRecentQuantity()
            }
            rows.append((statistics.startDate, quantity?.doubleValue(for: unit)))
        }
        if json {
            let objects: [[String: Any]] = rows.map { date, value in
                var object: [String: Any] = ["start": isoDate(date)]
                object["value"] = value ?? NSNull()
                return object
            }
            let document: [String: Any] = ["type": quantityType.identifier, "unit": unit.unitString, "statistic": statistic.rawValue,
                                           "intervals": objects]
            print(String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]),
                         as: UTF8.self))
            return
        }
        print("\(quantityType.displayName), \(statistic.rawValue) per \(interval) (\(unit.unitString))")
        for line in BarChart.lines(rows.map { (formatDate($0.0), $0.1) }) { print(line) }
    }
}

/// Parses interval names: `day`, `week`, `15min`, `6h`, `2d`, `1mo`.
func parseInterval(_ text: String) throws -> DateComponents {
    let named: [String: DateComponents] = ["minute": DateComponents(minute: 1), "hour": DateComponents(hour: 1),
                                           "day": DateComponents(day: 1), "week": DateComponents(day: 7),
                                           "month": DateComponents(month: 1), "year": DateComponents(year: 1)]
    let key = text.lowercased()
    if let components = named[key] { return components }
    let digits = key.prefix { $0.isNumber }
    guard let count = Int(digits), count > 0, count <= 10_000 else {
        throw ValidationError("invalid interval '\(text)': use minute, hour, day, week, month, year or e.g. 15min, 6h, 2d")
    }
    switch key.dropFirst(digits.count) {
    case "min", "m": return DateComponents(minute: count)
    case "h": return DateComponents(hour: count)
    case "d": return DateComponents(day: count)
    case "w": return DateComponents(day: 7 * count)
    case "mo": return DateComponents(month: count)
    case "y": return DateComponents(year: count)
    default: throw ValidationError("invalid interval '\(text)': use minute, hour, day, week, month, year or e.g. 15min, 6h, 2d")
    }
}

/// Draws labelled values as horizontal bars.
enum BarChart {
    static func lines(_ rows: [(label: String, value: Double?)], width: Int = 40) -> [String] {
        let maximum = rows.compactMap(\.value).max() ?? 0
        return rows.map { label, value in
            guard let value else { return "\(label)  " + String(repeating: " ", count: width) + "  –" }
            let cells = maximum > 0 ? Int((value / maximum * Double(width)).rounded()) : 0
            let bar = String(repeating: "█", count: max(0, min(width, cells)))
            return "\(label)  \(bar.padding(toLength: width, withPad: " ", startingAt: 0))  \(formatNumber(value))"
        }
    }
}
