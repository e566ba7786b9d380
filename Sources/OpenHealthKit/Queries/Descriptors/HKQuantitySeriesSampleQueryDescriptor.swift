import Foundation

/// The async form of ``HKQuantitySeriesSampleQuery`` (HealthKit's
/// `HKQuantitySeriesSampleQueryDescriptor`).
///
/// ```swift
/// let descriptor = HKQuantitySeriesSampleQueryDescriptor(
///     predicate: .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObject(with: sample.uuid)),
///     options: .orderByQuantitySampleStartDate)
/// for try await result in descriptor.results(for: store) {
///     // result.quantity over result.dateInterval
/// }
/// ```
///
/// Every quantity sample matching the predicate contributes its quantities: a series made by
/// ``HKQuantitySeriesSampleBuilder`` each of its quantities with its own date interval, any other
/// sample its one quantity over its own dates. `results(for:)` reads once: the sequence yields
/// every quantity and then ends. Samples the caller may not read are left out.
public struct HKQuantitySeriesSampleQueryDescriptor: Sendable {
    /// Options for the query (HealthKit's `HKQuantitySeriesSampleQueryDescriptor.Options`).
    public struct Options: OptionSet, Hashable, Sendable {
        /// The raw value.
        public let rawValue: Int

        /// Creates options from their raw value.
        /// - Parameter rawValue: The raw value of the option set.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Each result carries the quantity sample its quantity belongs to (``HKQuantitySeriesSampleQueryDescriptor/Result/sample``).
        public static let includeSample = Options(rawValue: 1 << 0)
        /// The results come grouped by their quantity sample, samples in start order, rather
        /// than all quantities in ascending start order.
        public static let orderByQuantitySampleStartDate = Options(rawValue: 1 << 1)
    }

    /// One quantity of a series (HealthKit's `HKQuantitySeriesSampleQueryDescriptor.Result`).
    public struct Result: Hashable, Sendable {
        /// The quantity sample that owns the series; nil unless the descriptor's options
        /// include ``HKQuantitySeriesSampleQueryDescriptor/Options/includeSample``.
        public let sample: HKQuantitySample?
        /// The quantity stored by the entry.
        public let quantity: HKQuantity
        /// The date interval of the entry.
        public let dateInterval: DateInterval
    }

    /// The quantities, one element per quantity (HealthKit's
    /// `HKQuantitySeriesSampleQueryDescriptor.Results`).
    public typealias Results = QueryDescriptorResults<Result>

    /// The quantity samples whose quantities are read.
    public var predicate: HKSamplePredicate<HKQuantitySample>
    /// The options of the query.
    public var options: Options

    /// Creates a quantity series query descriptor, as HealthKit's `init(predicate:options:)`.
    /// - Parameters:
    ///   - predicate: The quantity samples whose quantities are read.
    ///   - options: Whether results carry their sample, and whether they come grouped by sample.
    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: Options = []) {
        self.predicate = predicate
        self.options = options
    }

    /// The matching samples' quantities; the sequence ends after the last one. A predicate of a
    /// type that is not a quantity type ends it with `errorInvalidArgument`.
    /// - Parameter healthStore: The store the quantities are read from.
    public func results(for healthStore: HKHealthStore) -> Results {
        let predicate = predicate
        let options = options
        let stream = AsyncThrowingStream<Result, any Error> { continuation in
            let task = Task {
                do {
                    guard let type = predicate.sampleType as? HKQuantityType else {
                        throw HKError(.errorInvalidArgument, "a quantity series query needs a quantity type")
                    }
                    let items = try await HKQuantitySeriesSampleQuery.quantities(
                        in: healthStore, type: type, predicate: predicate.nsPredicate,
                        orderBySample: options.contains(.orderByQuantitySampleStartDate))
                    for item in items {
                        try Task.checkCancellation()
                        continuation.yield(Result(sample: options.contains(.includeSample) ? item.sample : nil,
                                                  quantity: item.entry.quantity, dateInterval: item.entry.dateInterval))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return Results(stream: stream)
    }
}
