import Foundation

/// The statistics of every calendar interval of a collection query
/// (HealthKit's `HKStatisticsCollection`).
public final class HKStatisticsCollection: NSObject, @unchecked Sendable {
    let quantityType: HKQuantityType
    let result: StatisticsCollectionResult
    let sourceTable: [Int32: HKSource]
    let wantsSources: Bool
    private let populated: [HKStatistics]

    init(quantityType: HKQuantityType, result: StatisticsCollectionResult, sourceTable: [Int32: HKSource], wantsSources: Bool) {
        self.quantityType = quantityType
        self.result = result
        self.sourceTable = sourceTable
        self.wantsSources = wantsSources
        self.populated = result.buckets.map {
            HKStatistics(quantityType: quantityType, interval: $0.interval, values: $0.values, bySource: $0.valuesBySource,
                         sourceTable: sourceTable)
        }
    }

    /// The intervals that hold samples, in chronological order.
    public func statistics() -> [HKStatistics] { populated }

    /// The statistics of the interval containing `date`; an empty statistics object (nil
    /// quantities) when it holds no samples, nil when the date cannot be placed.
    public func statistics(for date: Date) -> HKStatistics? {
        if let bucket = result.bucket(containing: date) {
            return HKStatistics(quantityType: quantityType, interval: bucket.interval, values: bucket.values,
                                bySource: bucket.valuesBySource, sourceTable: sourceTable)
        }
        guard let index = try? result.grid.index(containing: date), let interval = try? result.grid.interval(at: index) else { return nil }
        return HKStatistics(quantityType: quantityType, interval: interval, values: nil, bySource: wantsSources ? [:] : nil,
                            sourceTable: sourceTable)
    }

    /// Visits every interval from the one containing `startDate` up to `endDate`, empty ones
    /// included, in order. Set `stop.pointee` to true to end early.
    public func enumerateStatistics(from startDate: Date, to endDate: Date,
                                    with block: (HKStatistics, UnsafeMutablePointer<ObjCBool>) -> Void) {
        guard let intervals = try? result.grid.intervals(from: startDate, to: endDate) else { return }
        var stop = ObjCBool(false)
        for interval in intervals {
            guard let statistics = statistics(for: interval.start) else { continue }
            block(statistics, &stop)
            if stop.boolValue { return }
        }
    }

    /// The sources that contributed, with `separateBySource`; empty otherwise.
    public func sources() -> Set<HKSource> {
        guard wantsSources else { return [] }
        return Set(result.sources.compactMap { sourceTable[$0] })
    }
}
