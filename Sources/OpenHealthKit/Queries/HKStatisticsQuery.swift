import Foundation

/// Computes statistics over the samples matching a predicate (HealthKit's `HKStatisticsQuery`).
///
/// With no matching samples (or none the caller may read) the handler gets
/// `HKError.errorNoData`, as in HealthKit. Cumulative statistics merge overlapping sources by
/// source priority (`HKHealthStore.sourcePriority(for:)`), so one walk counted by a phone and a
/// watch counts once.
public final class HKStatisticsQuery: HKQuery, @unchecked Sendable {
    /// The statistics requested.
    public let options: HKStatisticsOptions
    private let completionHandler: @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void

    /// Creates a query, as HealthKit's `init(quantityType:quantitySamplePredicate:options:completionHandler:)`.
    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions,
                completionHandler handler: @escaping @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void) {
        self.options = options
        self.completionHandler = handler
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    /// The quantity type.
    public var quantityType: HKQuantityType {
        objectType as? HKQuantityType ?? HKQuantityType(HKQuantityTypeIdentifier(rawValue: objectType?.identifier ?? ""))
    }

    override func start(in store: HKHealthStore) async {
        do {
            let statistics = try await StatisticsRead.statistics(store: store, type: quantityType, predicate: predicate, options: options)
            guard !lifecycle.isStopped else { return }
            completionHandler(self, statistics, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            completionHandler(self, nil, error)
        }
    }
}
