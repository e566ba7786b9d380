import Foundation

/// Reads the individual quantities of quantity samples, series or not
/// (HealthKit's `HKQuantitySeriesSampleQuery`).
///
/// Every quantity sample of the type that matches the predicate contributes its quantities: a
/// series made by ``HKQuantitySeriesSampleBuilder`` each of its quantities with its own date
/// interval, any other sample its one quantity over its own dates. The handler is called once per
/// quantity; the last call has `done` set (a query with nothing to report calls it once with
/// nil values and `done` set). Samples the caller may not read are left out, as in every query.
public final class HKQuantitySeriesSampleQuery: HKQuery, @unchecked Sendable {
    /// Whether the handler also receives the quantity sample each quantity belongs to (default false).
    public var includeSample: Bool {
        get { lock.withLock { options.includeSample } }
        set { lock.withLock { options.includeSample = newValue } }
    }

    /// Whether the quantities come grouped by their sample, samples in start order, rather
    /// than all in ascending start order (default false).
    public var orderByQuantitySampleStartDate: Bool {
        get { lock.withLock { options.orderBySample } }
        set { lock.withLock { options.orderBySample = newValue } }
    }

    private struct Options {
        var includeSample = false
        var orderBySample = false
    }

    private enum Handler {
        case intervals(@Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, DateInterval?, HKQuantitySample?, Bool, (any Error)?) -> Void)
        case dates(@Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, Date?, Bool, (any Error)?) -> Void)
    }

    private let quantityType: HKQuantityType
    private let handler: Handler
    private let lock = NSLock()
    private var options = Options()

    /// Creates a new query for the quantities of the samples of a quantity type.
    /// - Parameters:
    ///   - quantityType: The quantity type.
    ///   - predicate: Filters the samples; `HKQuery.predicateForObject(with:)` reads one sample's quantities.
    ///   - quantityHandler: Called once per quantity with the quantity, its date interval, its
    ///     sample (when ``includeSample`` is set), whether it is the last, and any error.
    public init(quantityType: HKQuantityType, predicate: NSPredicate?,
                quantityHandler: @escaping @Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, DateInterval?, HKQuantitySample?, Bool,
                                                      (any Error)?) -> Void) {
        self.quantityType = quantityType
        self.handler = .intervals(quantityHandler)
        super.init(objectType: quantityType, predicate: predicate)
    }

    /// Creates a new query for the quantities of one sample (deprecated in HealthKit since
    /// iOS 13 in favour of ``init(quantityType:predicate:quantityHandler:)``).
    /// - Parameters:
    ///   - quantitySample: The sample whose quantities are read.
    ///   - quantityHandler: Called once per quantity with the quantity, its start date, whether
    ///     it is the last, and any error.
    @available(*, deprecated, message: "Use init(quantityType:predicate:quantityHandler:)")
    public init(sample quantitySample: HKQuantitySample,
                quantityHandler: @escaping @Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, Date?, Bool, (any Error)?) -> Void) {
        self.quantityType = quantitySample.quantityType
        self.handler = .dates(quantityHandler)
        super.init(objectType: quantitySample.quantityType, predicate: HKQuery.predicateForObject(with: quantitySample.uuid))
    }

    override func start(in store: HKHealthStore) async {
        let options = lock.withLock { self.options }
        do {
            let items = try await Self.quantities(in: store, type: quantityType, predicate: predicate, orderBySample: options.orderBySample)
            guard !items.isEmpty else {
                deliver(nil, nil, done: true, error: nil)
                return
            }
            for (index, item) in items.enumerated() {
                guard !lifecycle.isStopped else { return }
                deliver(item.entry, options.includeSample ? item.sample : nil, done: index == items.count - 1, error: nil)
            }
        } catch {
            deliver(nil, nil, done: true, error: error)
        }
    }

    /// The quantities of the samples of `type` that match `predicate` and the caller may read,
    /// each with its sample: a series' members, any other sample's one quantity over its own
    /// dates. In ascending start order, or grouped by sample (samples in start order) when
    /// `orderBySample` is set. Shared with `HKQuantitySeriesSampleQueryDescriptor`.
    static func quantities(in store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?,
                           orderBySample: Bool) async throws -> [(entry: QuantitySeriesEntry, sample: HKQuantitySample)] {
        let (database, fetch) = try await store.sampleFetch(type: type, predicate: predicate,
                                                            order: [SampleOrder(key: .startDate, ascending: true)])
        let samples = try await database.fetchSamples(fetch).compactMap { $0 as? HKQuantitySample }
        let series = try await database.seriesEntries(of: samples.map(\.uuid))
        var items: [(entry: QuantitySeriesEntry, sample: HKQuantitySample)] = []
        for sample in samples {
            if let entries = series[sample.uuid] {
                items += entries.map { ($0, sample) }
            } else {
                items.append((QuantitySeriesEntry(quantity: sample.quantity, dateInterval: DateInterval(start: sample.startDate, end: sample.endDate)),
                              sample))
            }
        }
        if !orderBySample {
            // Stable: quantities starting together keep their samples' order.
            items = items.enumerated().sorted {
                ($0.element.entry.dateInterval.start, $0.offset) < ($1.element.entry.dateInterval.start, $1.offset)
            }.map(\.element)
        }
        return items
    }

    private func deliver(_ entry: QuantitySeriesEntry?, _ sample: HKQuantitySample?, done: Bool, error: (any Error)?) {
        guard !lifecycle.isStopped else { return }
        switch handler {
        case .intervals(let handler): handler(self, entry?.quantity, entry?.dateInterval, sample, done, error)
        case .dates(let handler): handler(self, entry?.quantity, entry?.dateInterval.start, done, error)
        }
    }
}
