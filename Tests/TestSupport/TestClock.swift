import Foundation
import Synchronization

/// A clock that tests move by hand, passed wherever code reads the time (a store's `now`, a
/// key resolver's `now`), so that tests age a cache entry or a deletion without waiting.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// A clock reading `start` until it is moved.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        current = Mutex(start)
    }

    /// The current time.
    public var now: Date { current.withLock { $0 } }

    /// The clock as the closure the libraries take.
    public var reader: @Sendable () -> Date { { [self] in now } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
