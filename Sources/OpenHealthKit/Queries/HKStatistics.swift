import Foundation

/// Statistics over the samples of one quantity type in one interval (HealthKit's `HKStatistics`).
///
/// Each accessor answers only when its option was requested; the per-source variants answer
/// only with `separateBySource`. Quantities are in the type's canonical unit: convert with
/// `doubleValue(for:)`.
public final class HKStatistics: NSObject, @unchecked Sendable {
    /// The quantity type.
    public let quantityType: HKQuantityType
    /// The interval's start.
    public let startDate: Date
    /// The interval's end.
    public let endDate: Date
    /// The sources that contributed, with `separateBySource`; nil otherwise.
    public let sources: [HKSource]?

    let values: StatisticsValues?
    let valuesBySource: [String: StatisticsValues]

    init(quantityType: HKQuantityType, interval: DateInterval, values: StatisticsValues?,
         bySource: [Int32: StatisticsValues]?, sourceTable: [Int32: HKSource]) {
        self.quantityType = quantityType
        self.startDate = interval.start
        self.endDate = interval.end
        self.values = values
        var byBundle: [String: StatisticsValues] = [:]
        var sources: [HKSource] = []
        for (index, sourceValues) in bySource ?? [:] {
            guard let source = sourceTable[index] else { continue }
            byBundle[source.bundleIdentifier] = sourceValues
            sources.append(source)
        }
        self.valuesBySource = byBundle
        self.sources = bySource == nil ? nil : sources.sorted { $0.bundleIdentifier < $1.bundleIdentifier }
    }

    private func quantity(_ value: Double?) -> HKQuantity? {
        value.map { HKQuantity(unit: quantityType.canonicalUnit, doubleValue: $0) }
    }

    private func values(for source: HKSource) -> StatisticsValues? {
        valuesBySource[source.bundleIdentifier]
    }

    /// The sum (cumulative types, `cumulativeSum`).
    public func sumQuantity() -> HKQuantity? { quantity(values?.sum) }
    /// The average (discrete types, `discreteAverage`), weighted as the type's aggregation style says.
    public func averageQuantity() -> HKQuantity? { quantity(values?.average) }
    /// The minimum (`discreteMin`).
    public func minimumQuantity() -> HKQuantity? { quantity(values?.minimum) }
    /// The maximum (`discreteMax`).
    public func maximumQuantity() -> HKQuantity? { quantity(values?.maximum) }
    /// The most recent value (`mostRecent`).
    public func mostRecentQuantity() -> HKQuantity? { quantity(values?.mostRecent) }
    /// When the most recent value was measured (`mostRecent`).
    public func mostRecentQuantityDateInterval() -> DateInterval? { values?.mostRecentInterval }
    /// The time covered by samples (`duration`), in seconds.
    public func duration() -> HKQuantity? { values?.duration.map { HKQuantity(unit: .second(), doubleValue: $0) } }

    /// The sum from one source.
    public func sumQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.sum) }
    /// The average from one source.
    public func averageQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.average) }
    /// The minimum from one source.
    public func minimumQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.minimum) }
    /// The maximum from one source.
    public func maximumQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.maximum) }
    /// The most recent value from one source.
    public func mostRecentQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.mostRecent) }
    /// When the most recent value from one source was measured.
    public func mostRecentQuantityDateInterval(for source: HKSource) -> DateInterval? { values(for: source)?.mostRecentInterval }
    /// The time covered by one source's samples.
    public func duration(for source: HKSource) -> HKQuantity? {
        values(for: source)?.duration.map { HKQuantity(unit: .second(), doubleValue: $0) }
    }

    public override var description: String {
        "HKStatistics(\(quantityType.identifier), \(startDate) – \(endDate))"
    }
}
