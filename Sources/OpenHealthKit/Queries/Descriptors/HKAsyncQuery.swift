/// A query descriptor that runs once and returns a snapshot of what matches (HealthKit's
/// `HKAsyncQuery`, iOS 15.4).
///
/// Every descriptor with a `result(for:)` adopts it, so generic code can run any of them:
///
/// ```swift
/// func snapshot<Query: HKAsyncQuery>(_ query: Query, in store: HKHealthStore) async throws -> Query.Output {
///     try await query.result(for: store)
/// }
/// ```
public protocol HKAsyncQuery {
    /// What one run returns.
    associatedtype Output

    /// Runs a one-shot query and returns a snapshot of the current matching results.
    /// - Parameter healthStore: The access point for the data.
    /// - Returns: The query's output.
    /// - Throws: The store's error (a denied read, an unsupported predicate, a damaged store).
    func result(for healthStore: HKHealthStore) async throws -> Output
}

/// A query descriptor that returns its results as an asynchronous sequence (HealthKit's
/// `HKAsyncSequenceQuery`, iOS 15.4): the long-running descriptors keep delivering changes
/// until the consuming task stops iterating or is cancelled, the series descriptors deliver
/// a series' values one by one.
public protocol HKAsyncSequenceQuery {
    /// The sequence `results(for:)` returns.
    associatedtype Sequence: AsyncSequence

    /// Starts a query that returns its results as an asynchronous sequence.
    /// - Parameter healthStore: The access point for the data.
    /// - Returns: The sequence of results.
    func results(for healthStore: HKHealthStore) -> Sequence
}

extension HKSampleQueryDescriptor: HKAsyncQuery {}
extension HKAnchoredObjectQueryDescriptor: HKAsyncQuery, HKAsyncSequenceQuery {}
extension HKStatisticsQueryDescriptor: HKAsyncQuery {}
extension HKStatisticsCollectionQueryDescriptor: HKAsyncQuery, HKAsyncSequenceQuery {}
extension HKActivitySummaryQueryDescriptor: HKAsyncQuery, HKAsyncSequenceQuery {}
extension HKSourceQueryDescriptor: HKAsyncQuery {}
extension HKCorrelationQueryDescriptor: HKAsyncQuery {}
extension HKVerifiableClinicalRecordQueryDescriptor: HKAsyncQuery {}
extension HKQuantitySeriesSampleQueryDescriptor: HKAsyncSequenceQuery {}
extension HKHeartbeatSeriesQueryDescriptor: HKAsyncSequenceQuery {}
extension HKWorkoutRouteQueryDescriptor: HKAsyncSequenceQuery {}
extension HKElectrocardiogramQueryDescriptor: HKAsyncSequenceQuery {}
extension HKWorkoutEffortRelationshipQueryDescriptor: HKAsyncQuery, HKAsyncSequenceQuery {}
extension HKUserAnnotatedMedicationQueryDescriptor: HKAsyncQuery {}
