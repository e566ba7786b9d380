import Foundation
import HealthPresentation
import Mustache
import OpenHealthKit

/// A type's page: a period (day, week, month, year) with previous and next steps through time,
/// the period's chart (a quantity's sums or ranges per hour, day or month from the statistics;
/// sleep by stage per night; blood pressure), and the period's samples, newest first, 50 a page
/// by keyset (``TypePageSamples``); workouts with their duration, energy, distance and route length;
/// states of mind, assessments, ECGs (the newest with its trace), audiograms, prescriptions,
/// heartbeat series and medication doses with their own columns (``TypePageMeasurements``).
struct TypePage {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText

    static let template = """
        <p><a href="/browse">All types</a> · <a href="/recently-deleted">Recently deleted</a> · <a href="/browse/{{typeName}}/add">Add data</a></p>
        {{#hasParts}}<p>Each reading is one value, systolic over diastolic. Its parts on their own:\
         {{#parts}}<a href="{{href}}">{{name}}</a>{{^last}} · {{/last}}{{/parts}}</p>{{/hasParts}}
        <nav aria-label="Period" class="periods"><ul>
        {{#periods}}<li><a href="{{href}}"{{#current}} aria-current="true"{{/current}}>{{label}}</a></li>{{/periods}}
        </ul></nav>
        <nav aria-label="Through time" class="steps"><a href="{{previous}}">← Previous {{periodName}}</a>
        <span class="range">{{range}}</span>
        {{#next}}<a href="{{next}}">Next {{periodName}} →</a>{{/next}}{{^next}}<span></span>{{/next}}</nav>
        {{{chart}}}
        {{{nights}}}
        <section class="card" aria-labelledby="samples-heading">
        <h2 id="samples-heading">{{samplesTitle}}</h2>
        <p>{{countText}}</p>
        {{#hasSamples}}
        <div class="scroll"><table>
        <thead><tr>{{#columns}}<th scope="col">{{.}}</th>{{/columns}}<th scope="col">Delete</th></tr></thead>
        <tbody>
        {{#samples}}<tr>{{#cells}}<td>{{.}}</td>{{/cells}}
        <td><form method="get" action="/browse/{{typeName}}/delete">
        <input type="hidden" name="uuid" value="{{uuid}}">
        <button type="submit" class="delete" aria-label="Delete the sample of {{start}}">Delete</button></form></td></tr>{{/samples}}
        </tbody></table></div>
        {{/hasSamples}}
        {{#paged}}<nav aria-label="Pages of samples" class="steps">
        {{#newest}}<a href="{{newest}}">⇤ Newest samples</a>{{/newest}}{{^newest}}<span></span>{{/newest}}
        {{#newer}}<a href="{{newer}}" rel="prev">← Newer samples</a>{{/newer}}{{^newer}}<span></span>{{/newer}}
        {{#older}}<a href="{{older}}" rel="next">Older samples →</a>{{/older}}{{^older}}<span></span>{{/older}}</nav>{{/paged}}
        {{#hasSamples}}
        <details><summary>Delete the samples of some days</summary>
        <form method="get" action="/browse/{{typeName}}/delete" class="fields">
        <label for="delete-from">From</label><input id="delete-from" type="date" name="from" required>
        <label for="delete-to">To</label><input id="delete-to" type="date" name="to" required>
        <span></span><button type="submit" class="delete">Delete these days…</button>
        </form>
        </details>
        {{/hasSamples}}
        </section>
        """

    /// The page's content.
    /// - Parameters:
    ///   - type: the type shown.
    ///   - period: the period.
    ///   - end: the period's last day.
    ///   - before: the cursor of an older page of samples (nil: the newest, or a newer page).
    ///   - after: the cursor of a newer page of samples (nil: the newest, or an older page).
    ///   - order: how the sleep page ranks its nights (nil: newest first).
    ///   - csrf: the session's CSRF token.
    ///   - today: what "today" is (there is no next period after it).
    func render(_ type: HKSampleType, period: SummaryPeriod, end: Date, before: Date?, after: Date? = nil, order: NightOrder? = nil, csrf: String,
                today: Date) async throws -> String {
        let calendar = text.calendar
        let interval = period.interval(endingAt: min(end, today), calendar: calendar)
        let base = "/browse/\(type.identifier)"
        let link = { (period: SummaryPeriod, end: Date) in "\(base)?period=\(period.rawValue)&end=\(self.text.date(end).prefix(10))" }
        let lastDay = interval.end.addingTimeInterval(-1)
        let steps = period.steps(from: interval, today: today, calendar: calendar)
        var chart = try await self.chart(type, period: period, interval: interval)
        let page = try await TypePageSamples.read(type, in: interval, before: before, after: after, from: store)
        var columns = ["When", "Value", "Source"]
        var rows: [[String: Any]] = []
        if type is HKWorkoutType {
            columns = ["When", "Activity", "Duration", "Energy", "Distance", "Route", "Source"]
            for case let workout as HKWorkout in page.samples {
                rows.append(row(workout, cells: try await workoutCells(workout)))
            }
        } else if let measurementColumns = TypePageMeasurements.columns(for: type) {
            columns = measurementColumns
            let medications = type is HKMedicationDoseEventType ? try await TypePageMeasurements.medications(in: store) : []
            let measurements = TypePageMeasurements(text: text)
            rows = page.samples.map { row($0, cells: measurements.cells($0, medications: medications)) }
            if let ecg = page.samples.first as? HKElectrocardiogram {
                chart += try await TypePageMeasurements.trace(ecg, in: store, text: text)
            }
        } else {
            rows = page.samples.map { row($0, cells: [text.formatter.span(from: $0.startDate, to: $0.endDate), text.value(of: $0),
                                                       $0.sourceRevision.source.name]) }
        }
        let countText: String
        if rows.isEmpty {
            countText = before == nil ? "No samples in this period." : "No older samples in this period."
        } else {
            countText = "Newest first, \(TypePageSamples.pageSize) a page" + (page.next == nil ? "; the last page of this period." : ".")
        }
        // A blood-pressure reading's two quantity types are reached from its page (Browse lists the reading once).
        let parts: [[String: Any]] = type.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue
            ? TypeGroup.bloodPressureParts.enumerated().map { ["href": StoreCatalog.href($0.element), "name": SampleText.name(of: $0.element),
                                                              "last": $0.offset == TypeGroup.bloodPressureParts.count - 1] }
            : []
        let range = period == .day ? String(text.date(lastDay).prefix(10))
            : "\(text.date(interval.start).prefix(10)) to \(text.date(lastDay).prefix(10))"
        return pages.render("type", [
            "periods": SummaryPeriod.allCases.map { ["href": link($0, lastDay), "label": $0.label, "current": $0 == period] as [String: Any] },
            "previous": link(period, steps.previous), "next": steps.next.map { link(period, $0) } ?? false,
            "periodName": period.rawValue, "range": range, "chart": chart,
            "samplesTitle": type is HKWorkoutType ? "Workouts" : "Samples",
            "columns": columns, "samples": rows, "hasSamples": !rows.isEmpty, "countText": countText, "csrf": csrf, "typeName": type.identifier,
            "paged": page.newer != nil || page.next != nil || before != nil,
            "newest": page.newer == nil ? false : link(period, lastDay),
            "newer": page.newer.map { "\(link(period, lastDay))&after=\(TypePageSamples.cursorText($0))" } ?? false,
            "older": page.next.map { "\(link(period, lastDay))&before=\(TypePageSamples.cursorText($0))" } ?? false,
            "parts": parts, "hasParts": !parts.isEmpty,
            "nights": type.identifier == HKCategoryTypeIdentifier.sleepAnalysis.rawValue
                ? try await nights(period: period, interval: interval, order: order ?? .newest, link: link(period, lastDay)) : "",
        ])
    }

    /// How the sleep page ranks the nights of its period.
    enum NightOrder: String, CaseIterable, Sendable {
        case newest, longest, shortest
    }

    static let nightsTemplate = """
        <section class="card" aria-labelledby="nights-heading">
        <h2 id="nights-heading">Nights</h2>
        {{#hasNights}}
        <nav aria-label="Order of nights" class="periods"><ul>
        {{#orders}}<li><a href="{{href}}"{{#current}} aria-current="true"{{/current}}>{{label}}</a></li>{{/orders}}
        </ul></nav>
        <div class="scroll"><table class="nights">
        <thead><tr><th scope="col">Night ending</th><th scope="col">Asleep</th><th scope="col">Awake</th></tr></thead>
        <tbody>{{#nights}}<tr data-night="{{day}}" data-asleep="{{asleep}}">\
        <td>{{day}}</td><td>{{asleepText}}</td><td>{{awakeText}}</td></tr>{{/nights}}</tbody>
        </table></div>
        {{/hasNights}}
        {{^hasNights}}<p>{{empty}}</p>{{/hasNights}}
        </section>
        """

    /// The sleep page's nights of the period (not a year's: choose a month to rank its nights),
    /// each with its time asleep and awake, newest, longest or shortest first.
    private func nights(period: SummaryPeriod, interval: DateInterval, order: NightOrder, link: String) async throws -> String {
        guard period != .year else {
            return Self.renderNights(["hasNights": false, "empty": "Choose a month to rank its nights."])
        }
        let awake = SummarySleep.stages.firstIndex { $0.name == "Awake" } ?? SummarySleep.stages.count
        let nights = try await SummarySleep.nights(store, interval, text.calendar).map { (day: $0.key, asleep: TypeHeadline.asleep($0.value),
                                                                                         awake: awake < $0.value.count ? $0.value[awake] : 0) }
        let ranked: [(day: Date, asleep: Double, awake: Double)]
        switch order {
        case .newest: ranked = nights.sorted { $0.day > $1.day }
        case .longest: ranked = nights.sorted { $0.asleep != $1.asleep ? $0.asleep > $1.asleep : $0.day > $1.day }
        case .shortest: ranked = nights.sorted { $0.asleep != $1.asleep ? $0.asleep < $1.asleep : $0.day > $1.day }
        }
        return Self.renderNights([
            "hasNights": !ranked.isEmpty, "empty": "No sleep in this period.",
            "orders": NightOrder.allCases.map { ["href": "\(link)&order=\($0.rawValue)", "label": $0.rawValue.capitalized + " first",
                                                 "current": $0 == order] as [String: Any] },
            "nights": ranked.map { ["day": String(text.date($0.day).prefix(10)), "asleep": SVGChart.n($0.asleep),
                                    "asleepText": SampleText.duration($0.asleep * 3600), "awakeText": SampleText.duration($0.awake * 3600)] },
        ])
    }

    private static let nightsLibrary: MustacheLibrary = {
        var library = MustacheLibrary()
        try? library.register(nightsTemplate, named: "nights")
        return library
    }()

    private static func renderNights(_ context: [String: Any]) -> String {
        nightsLibrary.render(context, withTemplate: "nights") ?? ""
    }

    private func row(_ sample: HKSample, cells: [String]) -> [String: Any] {
        ["cells": cells, "start": text.date(sample.startDate), "uuid": sample.uuid.uuidString]
    }

    /// A workout's row: when, activity, duration, energy, distance, route length.
    private func workoutCells(_ workout: HKWorkout) async throws -> [String] {
        let formatter = text.formatter
        let distanceType = HKQuantityType(.distanceWalkingRunning)
        let route = try await TypePageWorkouts.routeLength(of: workout, in: store)
        return [
            formatter.span(from: workout.startDate, to: workout.endDate), workout.workoutActivityType.name,
            SampleText.duration(workout.duration),
            workout.totalEnergyBurned.map { formatter.quantity($0, of: HKQuantityType(.activeEnergyBurned)) } ?? "–",
            workout.totalDistance.map { formatter.quantity($0, of: distanceType) } ?? "–",
            route.map { formatter.quantity(HKQuantity(unit: .meter(), doubleValue: $0), of: distanceType) } ?? "–",
            workout.sourceRevision.source.name,
        ]
    }

    /// The period's chart: a quantity's sum (bars) or range and average per bar, sleep by stage,
    /// blood pressure; "" for a type without one.
    private func chart(_ type: HKSampleType, period: SummaryPeriod, interval: DateInterval) async throws -> String {
        let (each, per, column) = SummaryView.words(period)
        let calendar = text.calendar
        let starts = period.bucketStarts(of: interval, calendar: calendar)
        if let quantityType = type as? HKQuantityType {
            let cumulative = quantityType.aggregationStyle == .cumulative
            let unit = text.formatter.displayUnit(for: quantityType)
            let unitLabel = HealthUnits.label(for: unit, type: quantityType)
            let collection = try await SummaryReport.collection(store, quantityType,
                                                                 cumulative ? .cumulativeSum : [.discreteAverage, .discreteMin, .discreteMax],
                                                                 period, interval)
            let points = starts.map { start -> ChartPoint in
                let statistics = collection.statistics(for: start)
                let label = period.bucketLabel(start, text: text)
                if cumulative { return ChartPoint(label: label, value: statistics?.sumQuantity()?.doubleValue(for: unit)) }
                return ChartPoint(label: label, value: statistics?.averageQuantity()?.doubleValue(for: unit),
                                  low: statistics?.minimumQuantity()?.doubleValue(for: unit), high: statistics?.maximumQuantity()?.doubleValue(for: unit))
            }
            let name = SampleText.name(of: type)
            let number = { (value: Double?) in
                value.map { NumberText.format($0, decimals: HealthFormatter.decimals(for: quantityType, unit: unit, number: $0)) } ?? "–"
            }
            if cumulative {
                let title = "\(name), total per \(per) (\(unitLabel))"
                return render(id: "type", title: title, caption: "\(name) each \(each), all sources merged without double counting.",
                              svg: SVGChart.bars(points, id: "type", title: title), points: points, columns: [column, unitLabel]) {
                    [$0.label, number($0.value)]
                }
            }
            let title = "\(name) per \(per) (\(unitLabel))"
            return render(id: "type", title: title, caption: "Each \(each)'s lowest to highest (bar) and average (dot), in \(unitLabel).",
                          svg: SVGChart.ranges(points, id: "type", title: title), points: points, columns: [column, "Lowest", "Average", "Highest"]) {
                [$0.label, number($0.low), number($0.value), number($0.high)]
            }
        }
        if type.identifier == HKCategoryTypeIdentifier.sleepAnalysis.rawValue {
            let points = try await SummaryReport.sleepPoints(store, period: period, interval: interval, text: text)
            let stages = SummaryReport.sleepStages
            let title = period == .year ? "Average night per month by stage" : "Sleep per night by stage"
            return render(id: "type", title: title,
                          caption: "Hours by stage: " + stages.enumerated().map {
                              "\($0.element.name) (\(["purple", "dark blue", "light blue", "teal", "grey"][$0.offset]))"
                          }
                            .joined(separator: ", ") + ". Overlapping sources are counted once, the watch's first.",
                          svg: SVGChart.stacked(points, series: stages.map(\.name), id: "type", title: title),
                          points: points.map {
                              ChartPoint(label: $0.label, value: $0.segments.isEmpty ? nil : $0.segments.reduce(0, +), segments: $0.segments)
                          },
                          columns: [period == .year ? "Month" : "Night ending"] + stages.map { "\($0.name) (h)" }) { point in
                [point.label] + stages.indices.map { $0 < point.segments.count ? String(format: "%.1f", point.segments[$0]) : "–" }
            }
        }
        if type is HKWorkoutType {
            let points = try await workoutPoints(type, period: period, interval: interval, starts: starts)
            let title = "Workout minutes per \(per)"
            return render(id: "type", title: title, caption: "Minutes of workouts each \(each), counted on the \(each) each workout starts.",
                          svg: SVGChart.bars(points.map(\.point), id: "type", title: title), points: points.map(\.point),
                          columns: [column, "Minutes", "Workouts"]) { point in
                [point.label, point.value.map { NumberText.format($0, decimals: 0) } ?? "–",
                 points.first { $0.point.label == point.label }.map { String($0.count) } ?? "–"]
            }
        }
        if type.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue {
            let mmHg = HKUnit.millimeterOfMercury()
            let systolic = try await SummaryReport.collection(store, .bloodPressureSystolic, .discreteAverage, period, interval)
            let diastolic = try await SummaryReport.collection(store, .bloodPressureDiastolic, .discreteAverage, period, interval)
            let points = starts.map { start in
                let high = systolic.statistics(for: start)?.averageQuantity()?.doubleValue(for: mmHg)
                return ChartPoint(label: period.bucketLabel(start, text: text), value: high,
                                  low: diastolic.statistics(for: start)?.averageQuantity()?.doubleValue(for: mmHg), high: high)
            }
            let title = "Blood pressure per \(per)"
            return render(id: "type", title: title, caption: "Each \(each)'s average diastolic (bottom) to systolic (top), in mmHg.",
                          svg: SVGChart.ranges(points.map { ChartPoint(label: $0.label, value: nil, low: $0.low, high: $0.high) }, id: "type", title: title),
                          points: points, columns: [column, "Systolic", "Diastolic"]) {
                [$0.label, $0.high.map(SampleText.number) ?? "–", $0.low.map(SampleText.number) ?? "–"]
            }
        }
        return ""
    }

    /// The minutes of the workouts that start in each bar of the period (nil for a bar without
    /// one) and how many there are.
    private func workoutPoints(_ type: HKSampleType, period: SummaryPeriod, interval: DateInterval,
                               starts: [Date]) async throws -> [(point: ChartPoint, count: Int)] {
        let workouts = try await HKSampleQueryDescriptor(
            predicates: [.sample(type: type, predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end,
                                                                                      options: .strictStartDate))],
            sortDescriptors: [SortDescriptor(\HKSample.startDate)]).result(for: store)
        var minutes = [Double](repeating: 0, count: starts.count), counts = [Int](repeating: 0, count: starts.count)
        for workout in workouts {
            // The last bar that starts at or before the workout.
            var low = 0, high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] <= workout.startDate { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { continue }
            minutes[low - 1] += (workout as? HKWorkout)?.duration ?? workout.endDate.timeIntervalSince(workout.startDate)
            counts[low - 1] += 1
        }
        return starts.indices.map { index in
            (ChartPoint(label: period.bucketLabel(starts[index], text: text), value: counts[index] > 0 ? minutes[index] / 60 : nil), counts[index])
        }
    }

    private func render(id: String, title: String, caption: String, svg: String, points: [ChartPoint], columns: [String],
                        cells: (ChartPoint) -> [String]) -> String {
        let withData = points.filter { $0.value != nil || $0.low != nil || $0.high != nil }
        return pages.render("chart", [
            "id": id, "title": title, "caption": caption, "svg": svg, "hasData": !withData.isEmpty, "columns": columns,
            "rows": withData.map { ["cells": cells($0)] as [String: Any] },
        ])
    }
}
