import Foundation
import HealthPresentation
import OpenHealthKit

/// The Browse pages: every type with data, grouped like the Health app; a type's page with its
/// chart (the last 30 days), its samples with their sources, and deletion by the owner.
struct BrowseView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText
    /// How many samples a type's page lists, newest first.
    static let sampleLimit = 200

    func index() async throws -> String {
        let newest = try await StoreCatalog.newestSamples(in: store)
        let groups: [[String: Any]] = TypeGroup.allCases.compactMap { group in
            let types = newest.map(\.sampleType).filter { TypeGroup.of($0.identifier) == group }
                .sorted { SampleText.name(of: $0) < SampleText.name(of: $1) }
            guard !types.isEmpty else { return nil }
            return ["id": group.rawValue, "name": group.name,
                    "types": types.map { ["name": SampleText.name(of: $0), "href": StoreCatalog.href($0)] }]
        }
        return pages.render("browse", ["groups": groups])
    }

    func typePage(_ type: HKSampleType, csrf: String, now: Date) async throws -> String {
        var chart = ""
        if let quantityType = type as? HKQuantityType {
            let interval = SummaryPeriod.month.interval(endingAt: now, calendar: text.calendar)
            let cumulative = quantityType.aggregationStyle == .cumulative
            let unit = text.formatter.displayUnit(for: quantityType)
            let unitLabel = HealthUnits.label(for: unit, type: quantityType)
            let collection = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: quantityType, predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
                options: cumulative ? .cumulativeSum : .discreteAverage, anchorDate: interval.start,
                intervalComponents: DateComponents(day: 1)).result(for: store)
            var points: [ChartPoint] = []
            collection.enumerateStatistics(from: interval.start, to: interval.end) { statistics, _ in
                let quantity = cumulative ? statistics.sumQuantity() : statistics.averageQuantity()
                points.append(ChartPoint(label: text.day(statistics.startDate), value: quantity?.doubleValue(for: unit)))
            }
            let title = "\(SampleText.name(of: type)), \(cumulative ? "total" : "average") per day (\(unitLabel))"
            let svg = cumulative ? SVGChart.bars(points, id: "type", title: title) : SVGChart.line(points, id: "type", title: title)
            let withData = points.filter { $0.value != nil }
            chart = pages.render("chart", [
                "id": "type", "title": "Last 30 days", "caption": title, "svg": svg, "hasData": !withData.isEmpty,
                "columns": ["Day", unitLabel],
                "rows": withData.map { ["cells": [$0.label, $0.value.map(SampleText.number) ?? "–"]] as [String: Any] },
            ])
        }
        let samples = try await HKSampleQueryDescriptor(predicates: [.sample(type: type)],
                                                        sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)],
                                                        limit: Self.sampleLimit).result(for: store)
        let rows: [[String: Any]] = samples.map {
            ["start": text.date($0.startDate), "end": text.date($0.endDate), "value": text.value(of: $0), "source": $0.sourceRevision.source.name,
             "uuid": $0.uuid.uuidString]
        }
        let countText = samples.count == Self.sampleLimit ? "The newest \(Self.sampleLimit) samples." : "\(samples.count) samples."
        return pages.render("type", ["chart": chart, "samples": rows, "hasSamples": !rows.isEmpty, "countText": countText,
                                     "csrf": csrf, "typeName": type.identifier])
    }
}
