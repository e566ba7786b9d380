import Foundation

/// Reads the heartbeats of a heartbeat series sample (HealthKit's `HKHeartbeatSeriesQuery`).
///
/// The data handler is called once per beat, in time order; the last call has `done` set. A
/// series the caller may not read (without read permission for `HKSeriesType.heartbeat()`, and
/// not its own series while it may share the type) is reported as `errorNoData`, as is a
/// deleted series.
public final class HKHeartbeatSeriesQuery: HKQuery, @unchecked Sendable {
    private let series: HKHeartbeatSeriesSample
    private let dataHandler: @Sendable (HKHeartbeatSeriesQuery, TimeInterval, Bool, Bool, (any Error)?) -> Void

    /// Creates a new heartbeat series query.
    /// - Parameters:
    ///   - heartbeatSeries: The series sample whose beats are read.
    ///   - dataHandler: Called once per beat with its time since the series' start, whether a
    ///     gap precedes it, whether it is the last, and any error.
    public init(heartbeatSeries: HKHeartbeatSeriesSample,
                dataHandler: @escaping @Sendable (HKHeartbeatSeriesQuery, TimeInterval, Bool, Bool, (any Error)?) -> Void) {
        self.series = heartbeatSeries
        self.dataHandler = dataHandler
        super.init(objectType: HKSeriesType.heartbeat(), predicate: nil)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let database = try await store.engine.databaseAsync()
            let scope = try await store.engine.readScopeAsync(for: HKDataTypeIdentifierHeartbeatSeries)
            let beats = try await database.heartbeats(of: series.uuid, scope: scope)
            guard !beats.isEmpty else {
                guard !lifecycle.isStopped else { return }
                dataHandler(self, 0, false, true, nil)
                return
            }
            for (index, beat) in beats.enumerated() {
                guard !lifecycle.isStopped else { return }
                dataHandler(self, beat.timeSinceStart, beat.precededByGap, index == beats.count - 1, nil)
            }
        } catch {
            guard !lifecycle.isStopped else { return }
            dataHandler(self, 0, false, true, error)
        }
    }
}
