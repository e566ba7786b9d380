import Foundation
import HealthPresentation
import OpenHealthKit

/// Turns a ``SummaryReport`` into the Summary page's HTML: a chart per measure, each with its
/// numbers in a table, and the latest value of each type with data.
struct SummaryView {
    let pages: PageRenderer
    let text: SampleText

    func render(_ report: SummaryReport, latest: [LatestValue], today: Date) -> String {
        let hours = { (value: Double) in String(format: "%.1f", value) }
        let (each, per, column) = Self.words(report.period)
        let night = report.period == .year ? "Month (average night)" : "Night ending"
        let charts = [
            chart(id: "steps", title: "Steps per \(per)", caption: "Steps each \(each), all sources merged without double counting.",
                  svg: SVGChart.bars(report.steps, id: "steps", title: "Steps per \(per)"), points: report.steps,
                  columns: [column, "Steps"]) { [$0.label, $0.value.map(SampleText.number) ?? "–"] },
            chart(id: "heart", title: "Heart rate", caption: "Each \(each)'s lowest to highest heart rate (bar) and average (dot), in bpm.",
                  svg: SVGChart.ranges(report.heartRate, id: "heart", title: "Heart rate per \(per)"), points: report.heartRate,
                  columns: [column, "Lowest", "Average", "Highest"]) {
                      [$0.label, $0.low.map(SampleText.number) ?? "–", $0.value.map(SampleText.number) ?? "–", $0.high.map(SampleText.number) ?? "–"]
                  },
            chart(id: "sleep", title: "Sleep",
                  caption: (report.period == .year ? "Hours asleep on an average night of each month by stage: " : "Hours asleep each night by stage: ")
                    + SummaryReport.sleepStages.enumerated().map { "\($0.element.name) (\(["purple", "dark blue", "light blue", "teal", "grey"][$0.offset]))" }
                    .joined(separator: ", ") + ". Overlapping sources are counted once.",
                  svg: SVGChart.stacked(report.sleep, series: SummaryReport.sleepStages.map(\.name), id: "sleep", title: "Sleep per night by stage"),
                  points: report.sleep.map { ChartPoint(label: $0.label, value: $0.segments.isEmpty ? nil : $0.segments.reduce(0, +), segments: $0.segments) },
                  columns: [night] + SummaryReport.sleepStages.map { "\($0.name) (h)" }) { point in
                      [point.label] + SummaryReport.sleepStages.indices.map { index in index < point.segments.count ? hours(point.segments[index]) : "–" }
                  },
            chart(id: "weight", title: "Weight",
                  caption: "Average weight each \(each), in \(HealthUnits.label(for: report.weightUnit, type: HKQuantityType(.bodyMass))).",
                  svg: SVGChart.line(report.weight, id: "weight", title: "Weight trend"), points: report.weight,
                  columns: [column, "Weight (\(HealthUnits.label(for: report.weightUnit, type: HKQuantityType(.bodyMass))))"]) {
                      [$0.label, $0.value.map(SampleText.number) ?? "–"]
                  },
            chart(id: "pressure", title: "Blood pressure", caption: "Each \(each)'s average diastolic (bottom) to systolic (top), in mmHg.",
                  svg: SVGChart.ranges(report.bloodPressure, id: "pressure", title: "Blood pressure per \(per)"),
                  points: report.bloodPressure.map { ChartPoint(label: $0.label, value: $0.high, low: $0.low, high: $0.high) },
                  columns: [column, "Systolic", "Diastolic"]) {
                      [$0.label, $0.high.map(SampleText.number) ?? "–", $0.low.map(SampleText.number) ?? "–"]
                  },
        ].joined()
        let periods: [[String: Any]] = SummaryPeriod.allCases.map { ["id": $0.rawValue, "label": $0.label, "current": $0 == report.period] }
        let lastDay = report.interval.end.addingTimeInterval(-1)
        let latestRows: [[String: Any]] = latest.map { ["name": $0.name, "href": $0.href, "value": $0.value, "date": $0.date] }
        // Previous and next: the period that ends the day before this one starts, and the one after it.
        let steps = report.period.steps(from: report.interval, today: today, calendar: text.calendar)
        let link = { (end: Date) in "/summary?period=\(report.period.rawValue)&end=\(text.date(end).prefix(10))" }
        return pages.render("summary", [
            "previous": link(steps.previous), "next": steps.next.map(link) ?? false,
            "periodName": report.period.rawValue,
            "periods": periods, "charts": charts, "latest": latestRows, "hasLatest": !latest.isEmpty,
            "range": report.period == .day
                ? String(text.date(lastDay).prefix(10))
                : "\(text.date(report.interval.start).prefix(10)) to \(text.date(lastDay).prefix(10))",
        ])
    }

    /// How a period's bars are named: "each hour", "per hour", the table's first column "Hour".
    static func words(_ period: SummaryPeriod) -> (each: String, per: String, column: String) {
        switch period {
        case .day: ("hour", "hour", "Hour")
        case .week, .month: ("day", "day", "Day")
        case .year: ("month", "month", "Month")
        }
    }

    private func chart(id: String, title: String, caption: String, svg: String, points: [ChartPoint], columns: [String],
                       cells: (ChartPoint) -> [String]) -> String {
        let withData = points.filter { $0.value != nil || $0.low != nil || $0.high != nil }
        return pages.render("chart", [
            "id": id, "title": title, "caption": caption, "svg": svg, "hasData": !withData.isEmpty, "columns": columns,
            "rows": withData.map { ["cells": cells($0)] as [String: Any] },
        ])
    }
}

/// The newest sample of a type, as the Summary page lists it.
struct LatestValue: Sendable {
    let name: String
    let href: String
    let value: String
    let date: String
}
