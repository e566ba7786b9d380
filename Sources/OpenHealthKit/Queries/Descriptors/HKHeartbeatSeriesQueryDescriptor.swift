import Foundation

/// The async form of ``HKHeartbeatSeriesQuery`` (HealthKit's `HKHeartbeatSeriesQueryDescriptor`).
///
/// ```swift
/// for try await heartbeat in HKHeartbeatSeriesQueryDescriptor(mySample).results(for: store) {
///     // heartbeat.timeIntervalSinceStart, heartbeat.precededByGap
/// }
/// ```
///
/// `results(for:)` reads the series once: the sequence yields every beat in time order and then
/// ends (a series does not change after it is saved). A series the caller may not read, or one
/// deleted, ends the sequence with `errorNoData`, as the callback query reports it.
public struct HKHeartbeatSeriesQueryDescriptor: Sendable {
    /// One heartbeat of the series (HealthKit's `HKHeartbeatSeriesQueryDescriptor.Heartbeat`).
    public struct Heartbeat: Hashable, Sendable {
        /// The time of the heartbeat, measured from the sample's start date.
        public let timeIntervalSinceStart: TimeInterval
        /// Whether a gap in the data immediately precedes this heartbeat (beats may be missing).
        public let precededByGap: Bool
    }

    /// The heartbeats of a series, one element per beat (HealthKit's
    /// `HKHeartbeatSeriesQueryDescriptor.Results`).
    public typealias Results = QueryDescriptorResults<Heartbeat>

    /// The sample containing the heartbeat series.
    public var sample: HKHeartbeatSeriesSample

    /// Creates a heartbeat series query descriptor, as HealthKit's `init(_:)`.
    /// - Parameter sample: The sample containing the heartbeat series.
    public init(_ sample: HKHeartbeatSeriesSample) {
        self.sample = sample
    }

    /// The series' heartbeats, in time order; the sequence ends after the last one.
    /// - Parameter healthStore: The store the series is read from.
    public func results(for healthStore: HKHealthStore) -> Results {
        let series = sample
        let stream = AsyncThrowingStream<Heartbeat, any Error> { continuation in
            // The same read as HKHeartbeatSeriesQuery: the caller's read scope, then the series' beats.
            let task = Task {
                do {
                    let database = try await healthStore.engine.databaseAsync()
                    let scope = try await healthStore.engine.readScopeAsync(for: HKDataTypeIdentifierHeartbeatSeries)
                    for beat in try await database.heartbeats(of: series.uuid, scope: scope) {
                        try Task.checkCancellation()
                        continuation.yield(Heartbeat(timeIntervalSinceStart: beat.timeSinceStart, precededByGap: beat.precededByGap))
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
