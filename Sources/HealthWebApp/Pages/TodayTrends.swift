import Foundation
import HealthPresentation
import OpenHealthKit

/// Trends as the Health app shows them: for each quantity type with enough data, the last seven
/// full days against the four weeks before them (a day's average total for a type that adds up,
/// such as steps; the average for one that does not, such as heart rate), up, down or steady.
/// One statistics query per type (five weekly buckets, read from the rollups).
struct TodayTrend: Sendable {
    enum Direction: String, Sendable { case up, down, steady }

    let type: HKQuantityType
    /// This week's value, in `unit` (a day's average for a cumulative type).
    let current: Double
    /// The four weeks before, in `unit`.
    let previous: Double
    let unit: HKUnit
    /// The change, as a fraction of `previous`.
    var change: Double { previous == 0 ? 0 : (current - previous) / abs(previous) }
    /// Within 5% either way is steady.
    var direction: Direction { abs(change) < 0.05 ? .steady : (change > 0 ? .up : .down) }

    /// The weeks compared: the last 7 full days (up to the start of `now`'s day) and the 28 before them.
    static func weeks(endingBefore now: Date, calendar: Calendar) -> DateInterval {
        let end = calendar.startOfDay(for: now)
        let start = calendar.date(byAdding: .day, value: -35, to: end) ?? end.addingTimeInterval(-35 * 86_400)
        return DateInterval(start: start, end: end)
    }

    /// The trends of the quantity types among `types`, each with this week and at least three of
    /// the four weeks before it holding data.
    static func load(from store: HKHealthStore, types: [HKSampleType], units: SampleText, now: Date) async throws -> [TodayTrend] {
        let interval = weeks(endingBefore: now, calendar: units.calendar)
        var trends: [TodayTrend] = []
        for case let type as HKQuantityType in types {
            let cumulative = type.aggregationStyle == .cumulative
            let unit = units.formatter.displayUnit(for: type)
            let collection = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: type, predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
                options: cumulative ? .cumulativeSum : .discreteAverage, anchorDate: interval.start,
                intervalComponents: DateComponents(day: 7)).result(for: store)
            var weekly: [Double?] = []
            var week = interval.start
            for _ in 0..<5 {
                let statistics = collection.statistics(for: week)
                let quantity = cumulative ? statistics?.sumQuantity() : statistics?.averageQuantity()
                weekly.append(quantity.map { $0.doubleValue(for: unit) / (cumulative ? 7 : 1) })
                week = units.calendar.date(byAdding: .day, value: 7, to: week) ?? week.addingTimeInterval(7 * 86_400)
            }
            let before = weekly.prefix(4).compactMap { $0 }
            guard let current = weekly.last ?? nil, before.count >= 3 else { continue }
            trends.append(TodayTrend(type: type, current: current, previous: before.reduce(0, +) / Double(before.count), unit: unit))
        }
        return trends.sorted { SampleText.name(of: $0.type) < SampleText.name(of: $1.type) }
    }

    static let template = """
        <section class="card" aria-labelledby="trends-heading">
        <h2 id="trends-heading">Trends</h2>
        <p class="muted">The last 7 full days against the four weeks before them: a day's average for totals such as steps, the average for measurements.</p>
        {{#hasTrends}}<div class="scroll"><table>
        <thead><tr><th scope="col">Type</th><th scope="col">Last 7 days</th><th scope="col">4 weeks before</th><th scope="col">Trend</th></tr></thead>
        <tbody>{{#trends}}<tr data-kind="{{kind}}" data-direction="{{direction}}" data-current="{{current}}" data-previous="{{previous}}">
        <th scope="row"><a href="{{href}}">{{name}}</a></th><td>{{currentText}}</td><td>{{previousText}}</td><td class="trend-{{direction}}">{{trendText}}</td></tr>{{/trends}}</tbody>
        </table></div>{{/hasTrends}}
        {{^hasTrends}}<p>No type has five weeks of data yet.</p>{{/hasTrends}}
        </section>
        """

    /// The section's context.
    static func context(_ trends: [TodayTrend], text: SampleText) -> [String: Any] {
        let rows: [[String: Any]] = trends.map { trend in
            let perDay = trend.type.aggregationStyle == .cumulative ? " a day" : ""
            let shown = { (value: Double) in text.formatter.quantity(HKQuantity(unit: trend.unit, doubleValue: value), of: trend.type, unit: trend.unit) + perDay }
            let percent = NumberText.format(abs(trend.change) * 100, decimals: 0)
            let words: String
            switch trend.direction {
            case .up: words = "↑ up \(percent)%"
            case .down: words = "↓ down \(percent)%"
            case .steady: words = "→ steady"
            }
            return ["kind": trend.type.identifier, "direction": trend.direction.rawValue, "name": SampleText.name(of: trend.type),
                    "href": StoreCatalog.href(trend.type), "current": SVGChart.n(trend.current), "previous": SVGChart.n(trend.previous),
                    "currentText": shown(trend.current), "previousText": shown(trend.previous), "trendText": words]
        }
        return ["trends": rows, "hasTrends": !rows.isEmpty]
    }
}
