import Foundation

/// Builds one quantity sample holding many quantities, then saves it
/// (HealthKit's `HKQuantitySeriesSampleBuilder`).
///
/// Quantities are inserted at a date or for a date interval, in any order; one inserted with
/// the start date of an earlier one replaces it. ``finishSeries(metadata:endDate:)`` saves a
/// single sample whose `count` is the number of quantities and whose quantity is their sum
/// (cumulative types) or mean (discrete types). Statistics count every quantity with its own
/// dates, as if each had been saved alone; ``HKQuantitySeriesSampleQuery`` reads them back.
/// Saving needs share permission for the quantity type. After a finish or ``discard()`` the
/// builder refuses more data.
public final class HKQuantitySeriesSampleBuilder: NSObject, @unchecked Sendable {
    private let healthStore: HKHealthStore
    /// The quantity type for the series.
    public let quantityType: HKQuantityType
    /// The starting date and time for the sample.
    public let startDate: Date
    /// The device providing the data.
    public let device: HKDevice?
    private let lock = NSLock()
    /// The quantities by start date (a later insert at the same start replaces the earlier one).
    private var entries: [Date: QuantitySeriesEntry] = [:]
    private var closed = false

    /// Creates a new quantity series builder.
    /// - Parameters:
    ///   - healthStore: The store the series is saved to.
    ///   - quantityType: The sample's quantity type.
    ///   - startDate: The sample's start date; no quantity may start before it.
    ///   - device: The device that provided the data, or nil when the app generates it.
    public init(healthStore: HKHealthStore, quantityType: HKQuantityType, startDate: Date, device: HKDevice?) {
        self.healthStore = healthStore
        self.quantityType = quantityType
        self.startDate = startDate
        self.device = device
        super.init()
    }

    /// Adds a quantity at a date and time: a zero-length interval starting at `date`.
    /// - Parameters:
    ///   - quantity: The quantity to insert, in a unit compatible with the builder's type.
    ///   - date: The quantity's start date, not before ``startDate``.
    /// - Throws: `errorInvalidArgument` for a date before ``startDate``, an incompatible unit, a
    ///   value that is not finite, or a builder already finished or discarded.
    public func insert(_ quantity: HKQuantity, at date: Date) throws {
        try insert(quantity, for: DateInterval(start: date, duration: 0))
    }

    /// Adds a quantity with the date interval it covers.
    /// - Parameters:
    ///   - quantity: The quantity to insert, in a unit compatible with the builder's type.
    ///   - dateInterval: The period of the quantity; its start is not before ``startDate``. A
    ///     quantity with the same start as an earlier one replaces it.
    /// - Throws: `errorInvalidArgument` for an interval starting before ``startDate``, an
    ///   incompatible unit, a value that is not finite, or a builder already finished or discarded.
    public func insert(_ quantity: HKQuantity, for dateInterval: DateInterval) throws {
        guard dateInterval.start >= startDate else {
            throw HKError(.errorInvalidArgument, "a quantity of a series cannot start before the builder's start date")
        }
        guard quantityType.is(compatibleWith: quantity.storedUnit), let value = try? quantity.value(in: quantityType.canonicalUnit),
              value.isFinite else {
            throw HKError(.errorInvalidArgument, "\(quantityType.identifier): the quantity must be finite and in a unit of the type")
        }
        try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the series builder was finished or discarded") }
            entries[dateInterval.start] = QuantitySeriesEntry(quantity: quantity, dateInterval: dateInterval)
        }
    }

    /// Saves the series, ending at its last quantity's end, and returns the resulting samples.
    /// - Parameter metadata: Metadata for the samples the builder creates.
    /// - Returns: the saved sample (empty when no quantity was inserted: nothing is saved).
    public func finishSeries(metadata: [String: Any]?) async throws -> [HKQuantitySample] {
        try await finishSeries(metadata: metadata, endDate: nil)
    }

    /// Saves the series, ending at its last quantity's end, and calls `completion` with the samples.
    /// - Parameters:
    ///   - metadata: Metadata for the samples the builder creates.
    ///   - completion: Called with the saved samples, or nil and the error.
    public func finishSeries(metadata: [String: Any]?, completion: @escaping @Sendable ([HKQuantitySample]?, (any Error)?) -> Void) {
        finishSeries(metadata: metadata, endDate: nil, completion: completion)
    }

    /// Saves the series with an end date and returns the resulting samples.
    /// - Parameters:
    ///   - metadata: Metadata for the samples the builder creates.
    ///   - endDate: The series' end date, not before any quantity's end; nil for the last quantity's end.
    /// - Returns: the saved sample (empty when no quantity was inserted: nothing is saved).
    /// - Throws: `errorInvalidArgument` for an end date before a quantity's end or a builder
    ///   already finished or discarded; `errorAuthorizationDenied` or
    ///   `errorAuthorizationNotDetermined` without share permission. A failed save leaves the
    ///   builder open, so it can be retried.
    public func finishSeries(metadata: [String: Any]?, endDate: Date?) async throws -> [HKQuantitySample] {
        let list = try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the series builder was finished or discarded") }
            closed = true
            return Array(entries.values)
        }
        do {
            guard !list.isEmpty else { return [] }
            if let endDate, list.contains(where: { $0.dateInterval.end > endDate }) {
                throw HKError(.errorInvalidArgument, "the series' end date is before the end of one of its quantities")
            }
            let series = try PendingQuantitySeries(type: quantityType, entries: list, start: startDate, end: endDate, device: device,
                                                   metadata: metadata)
            try await healthStore.save(series)
            lock.withLock { entries = [:] }
            let saved: HKQuantitySample
            if quantityType.aggregationStyle == .cumulative {
                saved = HKCumulativeQuantitySample(type: quantityType, quantity: series.quantity, count: series.count, start: series.startDate,
                                                   end: series.endDate, uuid: series.uuid, sourceRevision: healthStore.engine.revision.revision,
                                                   device: device, metadata: series.metadata)
            } else {
                saved = HKDiscreteQuantitySample(type: quantityType, quantity: series.quantity, count: series.count, start: series.startDate,
                                                 end: series.endDate, uuid: series.uuid, sourceRevision: healthStore.engine.revision.revision,
                                                 device: device, metadata: series.metadata, seriesSummary: series.seriesSummary)
            }
            return [saved]
        } catch {
            lock.withLock { closed = false }
            throw error
        }
    }

    /// Saves the series with an end date and calls `completion` with the resulting samples.
    /// - Parameters:
    ///   - metadata: Metadata for the samples the builder creates.
    ///   - endDate: The series' end date, not before any quantity's end; nil for the last quantity's end.
    ///   - completion: Called with the saved samples, or nil and the error.
    public func finishSeries(metadata: [String: Any]?, endDate: Date?,
                             completion: @escaping @Sendable ([HKQuantitySample]?, (any Error)?) -> Void) {
        let metadata = UncheckedBox(metadata)
        Task {
            do {
                completion(try await finishSeries(metadata: metadata.value, endDate: endDate), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    /// Stops the builder and drops the quantities given to it; later calls fail.
    public func discard() {
        lock.withLock {
            closed = true
            entries = [:]
        }
    }
}
