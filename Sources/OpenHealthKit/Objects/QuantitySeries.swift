import Foundation

/// The minimum, maximum and most recent quantity of a discrete quantity series, which a series
/// sample's `HKDiscreteQuantitySample` properties report.
struct QuantitySeriesSummary: Sendable {
    var minimum: HKQuantity
    var maximum: HKQuantity
    var mostRecent: HKQuantity
    var mostRecentInterval: DateInterval
}

/// One quantity of a series and the period it covers.
struct QuantitySeriesEntry: @unchecked Sendable {
    var quantity: HKQuantity
    var dateInterval: DateInterval
}

/// A quantity series sample being saved by ``HKQuantitySeriesSampleBuilder``: one sample whose
/// ``HKQuantitySample/count`` is the number of quantities, whose quantity is their sum
/// (cumulative types) or mean (discrete types), and which spans the first quantity's start to
/// the last one's end (or the end date the builder was given).
///
/// The store keeps the series as one row and each quantity as a hidden member row, so the
/// statistics engine counts every quantity with its own dates, exactly as if the quantities had
/// been saved one by one.
final class PendingQuantitySeries: HKQuantitySample, @unchecked Sendable {
    /// The quantities, in start order.
    let entries: [QuantitySeriesEntry]

    /// - Throws: `errorInvalidArgument` for an empty series, a quantity whose unit does not fit
    ///   the type, or a value that is not finite.
    init(type: HKQuantityType, entries: [QuantitySeriesEntry], start: Date, end: Date?, device: HKDevice?,
         metadata: [String: Any]?) throws {
        guard !entries.isEmpty else { throw HKError(.errorInvalidArgument, "a quantity series needs at least one quantity") }
        let unit = type.canonicalUnit
        var sum = ExactSum()
        var values: [Double] = []
        values.reserveCapacity(entries.count)
        for entry in entries {
            guard type.is(compatibleWith: entry.quantity.storedUnit), let value = try? entry.quantity.value(in: unit), value.isFinite else {
                throw HKError(.errorInvalidArgument, "\(type.identifier): every quantity of a series must be finite and in a unit of the type")
            }
            values.append(value)
            sum.add(value)
        }
        let sorted = entries.sorted { $0.dateInterval.start < $1.dateInterval.start }
        self.entries = sorted
        let last = sorted.max { $0.dateInterval.end < $1.dateInterval.end }?.dateInterval.end ?? start
        let finalEnd = max(end ?? last, start)
        let summary: QuantitySeriesSummary?
        let value: Double
        if type.aggregationStyle == .cumulative {
            value = sum.value
            summary = nil
        } else {
            value = sum.value / Double(values.count)
            // The most recent quantity is the one that starts last (ties: the later end).
            let recent = sorted.max { ($0.dateInterval.start, $0.dateInterval.end) < ($1.dateInterval.start, $1.dateInterval.end) } ?? sorted[0]
            summary = QuantitySeriesSummary(minimum: HKQuantity(unit: unit, doubleValue: values.min() ?? value),
                                            maximum: HKQuantity(unit: unit, doubleValue: values.max() ?? value),
                                            mostRecent: recent.quantity, mostRecentInterval: recent.dateInterval)
        }
        super.init(type: type, quantity: HKQuantity(unit: unit, doubleValue: value), count: sorted.count, start: start, end: finalEnd,
                   uuid: UUID(), sourceRevision: nil, device: device, metadata: metadata, seriesSummary: summary)
    }
}

/// What a series row keeps in its sealed extra section (canonical units): the number of
/// quantities and, for a discrete type, the minimum, maximum and most recent quantity.
struct QuantitySeriesExtra: Codable, Equatable {
    var count: Int
    var minimum: Double?
    var maximum: Double?
    var mostRecent: Double?
    var mostRecentStart: Double?
    var mostRecentEnd: Double?

    init(_ series: PendingQuantitySeries) {
        count = series.count
        let unit = series.quantityType.canonicalUnit
        if let summary = series.seriesSummary {
            minimum = try? summary.minimum.value(in: unit)
            maximum = try? summary.maximum.value(in: unit)
            mostRecent = try? summary.mostRecent.value(in: unit)
            mostRecentStart = summary.mostRecentInterval.start.timeIntervalSinceReferenceDate
            mostRecentEnd = summary.mostRecentInterval.end.timeIntervalSinceReferenceDate
        }
    }

    /// The summary a discrete series reads back with, when every part is present and valid.
    func summary(unit: HKUnit) -> QuantitySeriesSummary? {
        guard let minimum, let maximum, let mostRecent, let mostRecentStart, let mostRecentEnd, mostRecentStart.isFinite,
              mostRecentEnd >= mostRecentStart else { return nil }
        return QuantitySeriesSummary(minimum: HKQuantity(unit: unit, doubleValue: minimum), maximum: HKQuantity(unit: unit, doubleValue: maximum),
                                     mostRecent: HKQuantity(unit: unit, doubleValue: mostRecent),
                                     mostRecentInterval: DateInterval(start: Date(timeIntervalSinceReferenceDate: mostRecentStart),
                                                                      end: Date(timeIntervalSinceReferenceDate: mostRecentEnd)))
    }
}
