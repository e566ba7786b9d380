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
    /// The diastolic pressure's this week and four weeks before (mmHg) when the row is a blood
    /// pressure (`type` is then the systolic pressure, which sets the direction).
    var diastolic: (current: Double, previous: Double)?
    /// The type the row names and links to: the blood-pressure reading for its two parts.
    var shownType: HKSampleType { diastolic == nil ? type : HKCorrelationType(.bloodPressure) }
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
    /// the four weeks before it holding data; blood pressure as one row (systolic/diastolic), its
    /// two parts not listed on their own.
    static func load(from store: HKHealthStore, types: [HKSampleType], units: SampleText, now: Date) async throws -> [TodayTrend] {
        let interval = weeks(endingBefore: now, calendar: units.calendar)
        var trends: [TodayTrend] = []
        for case let type as HKQuantityType in types where TypeGroup.listed(type) {
            let unit = units.formatter.displayUnit(for: type)
            guard let (current, previous) = try await compared(type, unit: unit, interval: interval, in: store, calendar: units.calendar) else { continue }
            trends.append(TodayTrend(type: type, current: current, previous: previous, unit: unit))
        }
        // Blood pressure: one row, systolic over diastolic, as one reading.
        let mmHg = HKUnit.millimeterOfMercury()
        let (systolic, diastolic) = (HKQuantityType(.bloodPressureSystolic), HKQuantityType(.bloodPressureDiastolic))
        if types.contains(where: { $0.identifier == systolic.identifier || $0.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue }),
           let high = try await compared(systolic, unit: mmHg, interval: interval, in: store, calendar: units.calendar),
           let low = try await compared(diastolic, unit: mmHg, interval: interval, in: store, calendar: units.calendar) {
            trends.append(TodayTrend(type: systolic, current: high.current, previous: high.previous, unit: mmHg,
                                     diastolic: (low.current, low.previous)))
        }
        return trends.sorted { SampleText.name(of: $0.shownType) < SampleText.name(of: $1.shownType) }
    }

    /// One type's last 7 days and the 4 weeks before them, in `unit` (one statistics query, five
    /// weekly buckets); nil unless this week and at least three of the four before hold data.
    private static func compared(_ type: HKQuantityType, unit: HKUnit, interval: DateInterval, in store: HKHealthStore,
                                 calendar: Calendar) async throws -> (current: Double, previous: Double)? {
        let cumulative = type.aggregationStyle == .cumulative
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
            week = calendar.date(byAdding: .day, value: 7, to: week) ?? week.addingTimeInterval(7 * 86_400)
        }
        let before = weekly.prefix(4).compactMap { $0 }
        guard let current = weekly.last ?? nil, before.count >= 3 else { return nil }
        return (current, before.reduce(0, +) / Double(before.count))
    }

    static let template = """
        <section class="card" aria-labelledby="trends-heading">
        <h2 id="trends-heading">Trends</h2>
        <p class="muted">The last 7 full days against the four weeks before them: a day's average for totals such as steps, the average for measurements.</p>
        {{#hasTrends}}<div class="scroll"><table>
        <thead><tr><th scope="col">Type</th><th scope="col">Last 7 days</th><th scope="col">4 weeks before</th><th scope="col">Trend</th></tr></thead>
        <tbody>{{#trends}}<tr data-kind="{{kind}}" data-direction="{{direction}}" data-current="{{current}}" data-previous="{{previous}}">
        <th scope="row"><a href="{{href}}">{{name}}</a></th><td>{{currentText}}</td>\
        <td>{{previousText}}</td><td class="trend-{{direction}}">{{trendText}}</td></tr>{{/trends}}</tbody>
        </table></div>{{/hasTrends}}
        {{^hasTrends}}<p>No type has five weeks of data yet.</p>{{/hasTrends}}
        </section>
        """

    /// The section's context.
    static func context(_ trends: [TodayTrend], text: SampleText) -> [String: Any] {
        let rows: [[String: Any]] = trends.map { trend in
            let perDay = trend.type.aggregationStyle == .cumulative ? " a day" : ""
            let quantity = { (value: Double) in
                text.formatter.quantity(HKQuantity(unit: trend.unit, doubleValue: value), of: trend.type, unit: trend.unit) + perDay
            }
            let shown = { (value: Double, diastolic: Double?) in
                diastolic.map { "\(SampleText.number(value.rounded()))/\(SampleText.number($0.rounded())) mmHg" } ?? quantity(value)
            }
            let percent = NumberText.format(abs(trend.change) * 100, decimals: 0)
            var words: String
            switch trend.direction {
            case .up: words = "↑ up \(percent)%"
            case .down: words = "↓ down \(percent)%"
            case .steady: words = "→ steady"
            }
            if trend.diastolic != nil { words += " (systolic)" }
            return ["kind": trend.shownType.identifier, "direction": trend.direction.rawValue, "name": SampleText.name(of: trend.shownType),
                    "href": StoreCatalog.href(trend.shownType), "current": SVGChart.n(trend.current), "previous": SVGChart.n(trend.previous),
                    "currentText": shown(trend.current, trend.diastolic?.current), "previousText": shown(trend.previous, trend.diastolic?.previous),
                    "trendText": words]
        }
        return ["trends": rows, "hasTrends": !rows.isEmpty]
    }
}
