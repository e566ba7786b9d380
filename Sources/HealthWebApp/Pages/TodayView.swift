import Foundation
import HealthPresentation
import OpenHealthKit

/// Turns a ``TodayReport`` into the Today page's HTML: a card per measure, each linking to its
/// type's page, with the value in the person's units (`HealthFormatter`, as the CLI writes it) and
/// the number itself in `data-value` (in the unit shown), for tests and for anyone reading the page's source.
struct TodayView {
    let pages: PageRenderer
    let text: SampleText

    static let template = """
        <p class="steps"><span class="range">{{day}}</span> <a href="/summary">Summary of the week</a></p>
        <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">Activity today</h2>
        <div class="tiles">{{#totals}}{{> tile}}{{/totals}}</div>
        </section>
        <section aria-labelledby="body-heading">
        <h2 id="body-heading">Sleep, heart and body</h2>
        <div class="tiles">{{#latest}}{{> tile}}{{/latest}}</div>
        </section>
        <section class="card" aria-labelledby="workouts-heading">
        <h2 id="workouts-heading"><a href="{{workoutsHref}}">Workouts today</a></h2>
        {{#hasWorkouts}}<ul class="tile-more">{{#workouts}}<li data-kind="workout"><strong>{{time}}</strong> {{value}}</li>{{/workouts}}</ul>{{/hasWorkouts}}
        {{^hasWorkouts}}<p class="muted">No workout today.</p>{{/hasWorkouts}}
        </section>
        \(TodayTrend.template)
        """

    static let tile = """
        <a class="card tile" href="{{href}}" data-kind="{{kind}}"><span class="tile-name">{{name}}</span>
        {{#when}}<span class="tile-when{{#past}} past{{/past}}">{{when}}</span>{{/when}}
        {{#hasValue}}<span class="tile-value"{{#number}} data-value="{{number}}"{{/number}}{{#day}} data-day="{{day}}"{{/day}}\
        {{#systolic}} data-systolic="{{systolic}}" data-diastolic="{{diastolic}}"{{/systolic}}>{{value}}</span>{{/hasValue}}
        {{^hasValue}}<span class="tile-value muted">–</span>{{/hasValue}}
        <span class="muted">{{note}}</span>
        {{#hasParts}}<ul class="tile-more">{{#parts}}<li>{{.}}</li>{{/parts}}</ul>{{/hasParts}}</a>
        """

    func render(_ report: TodayReport) -> String {
        let formatter = text.formatter
        var totals: [[String: Any]] = []
        let today = report.day.start
        for (index, type) in TodayReport.totalTypes.enumerated() {
            let unit = formatter.displayUnit(for: type)
            let sum = index < report.totals.count ? report.totals[index] : nil
            let day = index < report.totalDays.count ? report.totalDays[index] : nil
            let when = day.map { TypeHeadline.dayLabel($0, now: today, text: text) }
            let note = when.map { $0 == "Today" ? "Today, all sources merged." : "Nothing recorded today yet; the last day with data." }
                ?? "Nothing recorded today."
            totals.append(tile(type, kind: type.identifier, value: sum.map { formatter.quantity($0, of: type) },
                               number: sum.map { HealthFormatter.personNumber($0, unit: unit) }, note: note,
                               extra: day.map { ["day": String(text.date($0).prefix(10)), "when": when ?? "", "past": $0 != today] } ?? [:]))
        }
        var latest: [[String: Any]] = []
        let sleepType = HKCategoryType(.sleepAnalysis)
        if let hours = report.sleepHours {
            let stages = SummaryReport.sleepStages
            let asleep = TypeHeadline.asleep(hours)
            let parts = zip(stages, hours).filter { $0.1 > 0 }.map { "\($0.0.name): \(SampleText.duration($0.1 * 3600))" }
            let night = report.sleepNight.map { TypeHeadline.nightLabel($0, now: today, text: text) } ?? "Last night"
            latest.append(tile(sleepType, kind: "sleep", value: SampleText.duration(asleep * 3600), number: asleep,
                               note: night == "Last night" ? "Asleep last night." : "Asleep; nothing recorded last night.", parts: parts,
                               extra: report.sleepNight.map { ["day": String(text.date($0).prefix(10)), "when": night, "past": $0 != today] } ?? [:]))
        } else {
            latest.append(tile(sleepType, kind: "sleep", value: nil, number: nil, note: "No sleep recorded last night."))
        }
        for (type, sample) in zip(TodayReport.latestTypes, report.latest) {
            let unit = formatter.displayUnit(for: type)
            latest.append(tile(type, kind: type.identifier, value: sample.map { formatter.value(of: $0) },
                               number: sample.map { HealthFormatter.personNumber($0.quantity, unit: unit) },
                               note: sample.map { "Latest: \(text.date($0.startDate))" } ?? "No value yet."))
        }
        let pressureType = HKCorrelationType(.bloodPressure)
        let reading = report.bloodPressure.flatMap { correlation in HealthFormatter.bloodPressure(correlation).map { (correlation, $0) } }
        latest.append(tile(pressureType, kind: pressureType.identifier, value: reading.map { formatter.value(of: $0.0) },
                           number: nil, note: reading.map { "Latest: \(text.date($0.0.startDate))" } ?? "No reading yet.",
                           extra: reading.map { ["systolic": SampleText.number($0.1.systolic), "diastolic": SampleText.number($0.1.diastolic)] } ?? [:]))
        let workouts: [[String: Any]] = report.workouts.map {
            ["time": String(text.date($0.startDate).dropFirst(11).prefix(5)), "value": formatter.value(of: $0)]
        }
        var context: [String: Any] = [
            "day": String(text.date(report.day.start).prefix(10)), "totals": totals, "latest": latest,
            "workouts": workouts, "hasWorkouts": !workouts.isEmpty, "workoutsHref": StoreCatalog.href(HKWorkoutType()),
        ]
        context.merge(TodayTrend.context(report.trends, text: text)) { $1 }
        return pages.render("today", context)
    }

    private func tile(_ type: HKSampleType, kind: String, value: String?, number: Double?, note: String, parts: [String] = [],
                      extra: [String: Any] = [:]) -> [String: Any] {
        var tile: [String: Any] = ["href": StoreCatalog.href(type), "kind": kind, "name": SampleText.name(of: type), "hasValue": value != nil,
                                   "value": value ?? "", "number": number.map { SVGChart.n($0) } ?? false, "note": note,
                                   "parts": parts, "hasParts": !parts.isEmpty, "day": false, "when": false, "past": false]
        tile.merge(extra) { $1 }
        return tile
    }
}
