import Synchronization

/// The race between leasing a pooled connection and the store's connection timeout. Exactly
/// one side wins: either the operation got its connection first (and then runs to the end,
/// never cut off mid-transaction by the timeout) or the timeout fired first (and the operation
/// never starts). So a timed-out call has written nothing.
final class LeaseDeadline: Sendable {
    private enum State {
        case waiting, leased, timedOut
    }

    private let state = Mutex(State.waiting)

    init() {}

    /// Called with the connection in hand: true if the operation may run.
    func claimForOperation() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .leased
            return true
        }
    }

    /// Called when the timeout fires: true if the operation had not started (and now never will).
    func claimForTimeout() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .timedOut
            return true
        }
    }
}

/// Thrown inside the store when no connection was leased in time.
struct LeaseTimedOut: Error {}
