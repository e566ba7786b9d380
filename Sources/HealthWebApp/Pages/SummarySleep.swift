import Foundation
import OpenHealthKit

/// Sleep by night and stage as the Health app counts it: where sources overlap (a watch and a
/// phone app both recording the same night), each stretch of time is counted once, from the
/// source ranked first — as statistics rank sources by default: a watch, then a phone, then
/// another device, then an app; a source's own overlapping samples count once too.
enum SummarySleep {
    /// The sleep stages, bottom first: the segments of a night's bar.
    static let stages: [(name: String, values: Set<Int>)] = [
        ("Core", [HKCategoryValueSleepAnalysis.asleepCore.rawValue]),
        ("Deep", [HKCategoryValueSleepAnalysis.asleepDeep.rawValue]),
        ("REM", [HKCategoryValueSleepAnalysis.asleepREM.rawValue]),
        ("Asleep", [HKCategoryValueSleepAnalysis.asleepUnspecified.rawValue]),
        ("Awake", [HKCategoryValueSleepAnalysis.awake.rawValue]),
    ]

    /// A sample belongs to the night of the day its start plus six hours falls on (23:00 on
    /// Monday counts for Tuesday's night).
    static let shift: TimeInterval = 6 * 3600

    /// Hours per stage for each night whose day is in `interval`, keyed by that day's start. The
    /// samples are read by their start, an index range, not by overlap, which would visit every
    /// earlier night.
    static func nights(_ store: HKHealthStore, _ interval: DateInterval, _ calendar: Calendar) async throws -> [Date: [Double]] {
        let samples = try await HKSampleQueryDescriptor(
            predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis),
                                         predicate: HKQuery.predicateForSamples(withStart: interval.start.addingTimeInterval(-shift),
                                                                                end: interval.end.addingTimeInterval(-shift),
                                                                                options: .strictStartDate))],
            sortDescriptors: [SortDescriptor(\HKCategorySample.startDate)]).result(for: store)
        var byNight: [Date: [HKCategorySample]] = [:]
        for sample in samples where stages.contains(where: { $0.values.contains(sample.value) }) {
            let night = calendar.startOfDay(for: sample.startDate.addingTimeInterval(shift))
            guard night >= interval.start, night < interval.end else { continue }
            byNight[night, default: []].append(sample)
        }
        return byNight.mapValues(merged)
    }

    /// One night's hours per stage, each stretch of time counted once, from the source ranked first.
    static func merged(_ samples: [HKCategorySample]) -> [Double] {
        let ranked = samples.enumerated().sorted { a, b in
            let (rankA, rankB) = (rank(a.element), rank(b.element))
            if rankA != rankB { return rankA < rankB }
            let (sourceA, sourceB) = (a.element.sourceRevision.source.bundleIdentifier, b.element.sourceRevision.source.bundleIdentifier)
            if sourceA != sourceB { return sourceA < sourceB }
            return a.offset < b.offset
        }.map(\.element)
        var hours = Array(repeating: 0.0, count: stages.count)
        var covered: [(start: Date, end: Date)] = []
        for sample in ranked {
            guard let stage = stages.firstIndex(where: { $0.values.contains(sample.value) }), sample.endDate > sample.startDate else { continue }
            var pieces = [(start: sample.startDate, end: sample.endDate)]
            for taken in covered {
                pieces = pieces.flatMap { piece -> [(start: Date, end: Date)] in
                    guard taken.start < piece.end, taken.end > piece.start else { return [piece] }
                    var left: [(start: Date, end: Date)] = []
                    if taken.start > piece.start { left.append((piece.start, taken.start)) }
                    if taken.end < piece.end { left.append((taken.end, piece.end)) }
                    return left
                }
            }
            hours[stage] += pieces.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) } / 3600
            covered.append((sample.startDate, sample.endDate))
        }
        return hours
    }

    /// A sample's source rank, lower first: 0 a watch, 1 a phone, 2 another device, 3 an app
    /// (no product type), as the store's default source priority.
    static func rank(_ sample: HKSample) -> Int {
        guard let product = sample.sourceRevision.productType, !product.isEmpty else { return 3 }
        if product.hasPrefix("Watch") { return 0 }
        if product.hasPrefix("iPhone") { return 1 }
        return 2
    }
}
