import FhirBlocks
import Foundation
import Synchronization

/// The server's clock as seen from here: the local clock plus an offset learned from
/// `util/getTime` (§1.2 step 2).
///
/// The offset is `server − local`, measured against the midpoint of the round trip, so
/// ``now()`` = local time + offset tracks the server's clock. (The legacy client subtracted the
/// offset, which doubled a skew instead of removing it, §1.4.) Before any synchronisation the
/// offset is zero.
public final class ServerClock: Sendable {
    private let offset = Mutex<Int64?>(nil)
    private let localClock: @Sendable () -> Timestamp

    /// A clock that reads the local time from `localClock` (the system clock by default).
    public init(localClock: @escaping @Sendable () -> Timestamp = ServerClock.systemTime) {
        self.localClock = localClock
    }

    /// The system clock as a `Timestamp`.
    public static let systemTime: @Sendable () -> Timestamp = {
        Timestamp(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The local clock's reading.
    public func localNow() -> Timestamp { localClock() }

    /// The learned offset in milliseconds (`server − local`), or nil before ``record(serverTime:sentAt:receivedAt:)``.
    public var offsetMilliseconds: Int64? { offset.withLock { $0 } }

    /// Whether an offset has been learned.
    public var isSynchronized: Bool { offsetMilliseconds != nil }

    /// Learns the offset from a server reading taken between `sentAt` and `receivedAt` (local
    /// times): offset = server − midpoint. Returns the offset in milliseconds.
    @discardableResult
    public func record(serverTime: Timestamp, sentAt: Timestamp, receivedAt: Timestamp) -> Int64 {
        let roundTrip = max(0, receivedAt.milliseconds(since: sentAt))
        let midpoint = sentAt.adding(milliseconds: roundTrip / 2)
        let measured = serverTime.milliseconds(since: midpoint)
        offset.withLock { $0 = measured }
        return measured
    }

    /// Sets the offset directly (milliseconds, `server − local`).
    public func setOffset(milliseconds: Int64) {
        offset.withLock { $0 = milliseconds }
    }

    /// The server's time now: local time plus the offset (zero before synchronisation).
    public func now() -> Timestamp {
        localClock().adding(milliseconds: offsetMilliseconds ?? 0)
    }
}
