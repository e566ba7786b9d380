import Foundation

/// The async form of `HKStatisticsQuery` (HealthKit's `HKStatisticsQueryDescriptor`).
public struct HKStatisticsQueryDescriptor: Sendable {
    /// The samples to compute over.
    public var predicate: HKSamplePredicate<HKQuantitySample>
    /// The statistics requested.
    public var options: HKStatisticsOptions

    /// Creates a descriptor.
    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions) {
        self.predicate = predicate
        self.options = options
    }

    /// Runs the query: nil when there is no data (HealthKit's errorNoData).
    public func result(for healthStore: HKHealthStore) async throws -> HKStatistics? {
        guard let type = predicate.sampleType as? HKQuantityType else {
            throw HKError(.errorInvalidArgument, "a statistics query needs a quantity type")
        }
        do {
            return try await StatisticsRead.statistics(store: healthStore, type: type, predicate: predicate.nsPredicate, options: options)
        } catch let error as HKError where error.code == .errorNoData {
            return nil
        }
    }
}

/// The async form of `HKStatisticsCollectionQuery` (HealthKit's `HKStatisticsCollectionQueryDescriptor`).
public struct HKStatisticsCollectionQueryDescriptor: Sendable {
    /// One delivery: the whole collection and, for updates, the intervals that changed.
    public struct Result: Sendable {
        /// The statistics of every interval.
        public let statisticsCollection: HKStatisticsCollection
        /// The intervals that changed; nil for the first delivery.
        public let updatedStatistics: [HKStatistics]?
    }

    /// The long-running sequence of collections (HealthKit's
    /// `HKStatisticsCollectionQueryDescriptor.Results`).
    public typealias Results = QueryDescriptorResults<HKStatisticsCollectionQueryDescriptor.Result>

    /// The samples to compute over.
    public var predicate: HKSamplePredicate<HKQuantitySample>
    /// The statistics requested.
    public var options: HKStatisticsOptions
    /// The anchor intervals extend from.
    public var anchorDate: Date
    /// The interval length.
    public var intervalComponents: DateComponents
    /// The calendar intervals are stepped with (OpenHealthKit API; default: current).
    public var calendar: Calendar = .current

    /// Creates a descriptor.
    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions, anchorDate: Date,
                intervalComponents: DateComponents) {
        self.predicate = predicate
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
    }

    private func makeQuery() throws -> HKStatisticsCollectionQuery {
        guard let type = predicate.sampleType as? HKQuantityType else {
            throw HKError(.errorInvalidArgument, "a statistics collection query needs a quantity type")
        }
        let query = HKStatisticsCollectionQuery(quantityType: type, quantitySamplePredicate: predicate.nsPredicate, options: options,
                                                anchorDate: anchorDate, intervalComponents: intervalComponents)
        query.calendar = calendar
        return query
    }

    /// Computes the collection once.
    public func result(for healthStore: HKHealthStore) async throws -> HKStatisticsCollection {
        try await makeQuery().compute(in: healthStore)
    }

    /// The collection, then a new one after every change that alters it, until the consumer
    /// stops iterating (or its task is cancelled).
    public func results(for healthStore: HKHealthStore) -> Results {
        Results(stream: AsyncThrowingStream { continuation in
            let query: HKStatisticsCollectionQuery
            do {
                query = try makeQuery()
            } catch {
                continuation.finish(throwing: error)
                return
            }
            query.initialResultsHandler = { _, collection, error in
                if let error { continuation.finish(throwing: error) } else if let collection {
                    continuation.yield(Result(statisticsCollection: collection, updatedStatistics: nil))
                }
            }
            query.groupedUpdateHandler = { changed, collection in
                continuation.yield(Result(statisticsCollection: collection, updatedStatistics: changed))
            }
            query.statisticsUpdateHandler = { _, _, _, error in
                if let error { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in healthStore.stop(query) }
            healthStore.execute(query)
        })
    }
}
