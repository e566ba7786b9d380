import Foundation

/// Builds a heartbeat series from beats given as times since its start, then saves it
/// (HealthKit's `HKHeartbeatSeriesBuilder`).
///
/// Saving needs share permission for `HKSeriesType.heartbeat()`. The series spans its start to
/// its last beat. After ``finishSeries()`` or ``discard()`` the builder refuses more data.
public final class HKHeartbeatSeriesBuilder: HKSeriesBuilder, @unchecked Sendable {
    private let healthStore: HKHealthStore
    private let device: HKDevice?
    private let startDate: Date
    private let lock = NSLock()
    private var beats: [HKHeartbeatSeriesSample.Heartbeat] = []
    private var metadata: [String: Any] = [:]
    private var closed = false

    /// The maximum number of heartbeats one series can hold (OpenHealthKit's limit); adding
    /// more fails.
    public class var maximumCount: Int { 100_000 }

    /// Creates a new heartbeat series builder.
    /// - Parameters:
    ///   - healthStore: The store the series is saved to.
    ///   - device: The device that provided the heartbeat data, or nil when the app generates it.
    ///   - startDate: The sample's start date; beats are times since it.
    public init(healthStore: HKHealthStore, device: HKDevice?, start startDate: Date) {
        self.healthStore = healthStore
        self.device = device
        self.startDate = startDate
        super.init()
    }

    /// Adds a heartbeat to the series.
    /// - Parameters:
    ///   - timeIntervalSinceStart: The time of the beat in seconds since the series' start, zero or more.
    ///   - precededByGap: Whether one or more beats may be missing just before this one.
    /// - Throws: `errorInvalidArgument` for a negative or non-finite time, more than
    ///   ``maximumCount`` beats, or a builder already finished or discarded.
    public func addHeartbeat(at timeIntervalSinceStart: TimeInterval, precededByGap: Bool) async throws {
        guard timeIntervalSinceStart.isFinite, timeIntervalSinceStart >= 0 else {
            throw HKError(.errorInvalidArgument, "a heartbeat's time since the series start must be zero or more")
        }
        try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the heartbeat series builder was finished or discarded") }
            guard beats.count < Self.maximumCount else {
                throw HKError(.errorInvalidArgument, "a heartbeat series holds at most \(Self.maximumCount) beats")
            }
            beats.append(.init(timeSinceStart: timeIntervalSinceStart, precededByGap: precededByGap))
        }
    }

    /// Adds a heartbeat to the series and calls `completion`.
    /// - Parameters:
    ///   - timeIntervalSinceStart: The time of the beat in seconds since the series' start, zero or more.
    ///   - precededByGap: Whether one or more beats may be missing just before this one.
    ///   - completion: Called with whether the beat was added, and the error when it was not.
    public func addHeartbeatWithTimeInterval(sinceSeriesStartDate timeIntervalSinceStart: TimeInterval, precededByGap: Bool,
                                             completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await addHeartbeat(at: timeIntervalSinceStart, precededByGap: precededByGap)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Adds metadata to the sample; a key given again replaces the earlier value.
    /// - Parameter metadata: The metadata to add.
    public func addMetadata(_ metadata: [String: Any]) async throws {
        _ = try MetadataCodec.values(metadata)
        try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the heartbeat series builder was finished or discarded") }
            self.metadata.merge(metadata) { _, new in new }
        }
    }

    /// Adds metadata to the sample and calls `completion`.
    /// - Parameters:
    ///   - metadata: The metadata to add.
    ///   - completion: Called with whether the metadata was added, and the error when it was not.
    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let metadata = UncheckedBox(metadata)
        Task {
            do {
                try await addMetadata(metadata.value)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Saves the series and returns the resulting heartbeat series sample.
    /// - Throws: `errorInvalidArgument` when no beat was added or the builder was finished or
    ///   discarded; `errorAuthorizationDenied` or `errorAuthorizationNotDetermined` without
    ///   share permission for `HKSeriesType.heartbeat()`. A failed save leaves the builder open.
    public func finishSeries() async throws -> HKHeartbeatSeriesSample {
        let (list, merged) = try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the heartbeat series builder was finished or discarded") }
            closed = true
            return (beats, metadata)
        }
        do {
            try HeartbeatCodec.validate(list)
            let series = HKHeartbeatSeriesSample(beats: list.sorted { $0.timeSinceStart < $1.timeSinceStart }, start: startDate,
                                                 device: device, metadata: merged.isEmpty ? nil : merged)
            try await healthStore.save(series)
            lock.withLock { beats = [] }
            return HKHeartbeatSeriesSample(count: series.count, start: series.startDate, end: series.endDate, uuid: series.uuid,
                                           sourceRevision: healthStore.engine.revision.revision, device: device, metadata: series.metadata)
        } catch {
            lock.withLock { closed = false }
            throw error
        }
    }

    /// Saves the series and calls `completion` with the resulting heartbeat series sample.
    /// - Parameter completion: Called with the saved sample, or nil and the error.
    public func finishSeries(completion: @escaping @Sendable (HKHeartbeatSeriesSample?, (any Error)?) -> Void) {
        Task {
            do {
                completion(try await finishSeries(), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    /// Drops the beats and metadata given so far; later calls fail.
    public override func discard() {
        lock.withLock {
            closed = true
            beats = []
            metadata = [:]
        }
    }
}
