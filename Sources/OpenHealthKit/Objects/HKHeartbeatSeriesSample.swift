import Foundation

/// A sample that represents a series of heartbeats (HealthKit's `HKHeartbeatSeriesSample`):
/// its ``HKSeriesSample/count`` beats are read with ``HKHeartbeatSeriesQuery``.
///
/// Heartbeat series are made with ``HKHeartbeatSeriesBuilder`` (type `HKSeriesType.heartbeat()`).
/// Each beat is a time since the series' start and whether a gap (missed beats) precedes it; the
/// beats are sealed in the store with the sample's record.
public final class HKHeartbeatSeriesSample: HKSeriesSample, @unchecked Sendable {
    /// The beats to store, for a series not yet saved (nil for a series read from a store).
    let pendingBeats: [Heartbeat]?

    /// One beat: seconds since the series' start, and whether missed beats precede it.
    struct Heartbeat: Sendable, Equatable {
        var timeSinceStart: TimeInterval
        var precededByGap: Bool
    }

    init(beats: [Heartbeat], start: Date, device: HKDevice?, metadata: [String: Any]?) {
        pendingBeats = beats
        let end = start.addingTimeInterval(beats.last?.timeSinceStart ?? 0)
        super.init(type: .heartbeat(), count: beats.count, start: start, end: max(start, end), device: device, metadata: metadata)
    }

    init(count: Int, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision, device: HKDevice?, metadata: [String: Any]?) {
        pendingBeats = nil
        super.init(type: .heartbeat(), count: count, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }

    /// A heartbeat series to save with `HKHealthStore.save(_:)`, from beats given as times since
    /// `start` (OpenHealthKit API, for importers of other devices' exports; apps use
    /// ``HKHeartbeatSeriesBuilder``). The beats are sorted by time.
    /// - Parameters:
    ///   - beats: Each beat's time in seconds since `start`, and whether missed beats precede it.
    ///   - start: The series' start.
    ///   - device: The device that recorded the beats, if known.
    ///   - metadata: The series' metadata (a sync identifier makes a second import a no-op).
    /// - Throws: `errorInvalidArgument` when there are no beats, or a time is negative or not finite.
    public static func imported(beats: [(timeSinceStart: TimeInterval, precededByGap: Bool)], start: Date, device: HKDevice?,
                                metadata: [String: Any]?) throws -> HKHeartbeatSeriesSample {
        let list = beats.map { Heartbeat(timeSinceStart: $0.timeSinceStart, precededByGap: $0.precededByGap) }
        try HeartbeatCodec.validate(list)
        return HKHeartbeatSeriesSample(beats: list.sorted { $0.timeSinceStart < $1.timeSinceStart }, start: start, device: device,
                                       metadata: metadata)
    }
}

/// The sealed form of a heartbeat series' beats, in the record's extra section: per beat a
/// little-endian `Double` (seconds since the start) and a byte (1 when a gap precedes it).
enum HeartbeatCodec {
    /// - Throws: `errorInvalidArgument` when there are no beats, too many, or a time is negative or not finite.
    static func validate(_ beats: [HKHeartbeatSeriesSample.Heartbeat]) throws {
        guard !beats.isEmpty else { throw HKError(.errorInvalidArgument, "a heartbeat series needs at least one beat") }
        guard beats.count <= HKHeartbeatSeriesBuilder.maximumCount else {
            throw HKError(.errorInvalidArgument, "a heartbeat series holds at most \(HKHeartbeatSeriesBuilder.maximumCount) beats")
        }
        for beat in beats where !(beat.timeSinceStart.isFinite && beat.timeSinceStart >= 0) {
            throw HKError(.errorInvalidArgument, "a heartbeat's time since the series start must be zero or more")
        }
    }

    static func encode(_ beats: [HKHeartbeatSeriesSample.Heartbeat]) -> Data {
        var writer = ByteWriter(capacity: beats.count * 9)
        for beat in beats {
            writer.double(beat.timeSinceStart)
            writer.byte(beat.precededByGap ? 1 : 0)
        }
        return Data(writer.bytes)
    }

    static func decode(_ data: Data) throws -> [HKHeartbeatSeriesSample.Heartbeat] {
        let bytes = [UInt8](data)
        guard bytes.count % 9 == 0 else { throw HealthStoreError(.corruptDatabase, "sealed heartbeats are truncated") }
        var beats: [HKHeartbeatSeriesSample.Heartbeat] = []
        beats.reserveCapacity(bytes.count / 9)
        var offset = 0
        while offset < bytes.count {
            var bits: UInt64 = 0
            for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            beats.append(.init(timeSinceStart: Double(bitPattern: bits), precededByGap: bytes[offset + 8] != 0))
            offset += 9
        }
        return beats
    }
}
