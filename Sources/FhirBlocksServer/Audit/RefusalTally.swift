import FhirBlocks
import Synchronization

/// Events of callers the server cannot hold to account, counted by event type, outcome and
/// reason instead of logged one by one: refusals of callers that could not be verified (an
/// unknown csiGuid, a bad signature or assertion, a replay, a self-signed registration that
/// failed), and what anyone may do without an identity the operator knows (a dynamic client
/// registration, a new `/authorize` request, a self-registered wallet's refused decision).
///
/// Such a request names whoever it likes, or an identity anyone can make for free, so an entry
/// per request would attribute an attacker's garbage to a real user and let anyone grow the
/// permanent log at will. The server writes the counts as one aggregate entry per (type,
/// outcome, reason) — agent `unverified`, with its `count` — at each checkpoint period and at
/// shutdown.
final class RefusalTally: Sendable {
    struct Key: Hashable, Sendable {
        let type: AuditEventType
        let reason: String
        /// `minorFailure` for a refusal, `success` for an anonymous event that was accepted.
        let outcome: AuditOutcome

        init(type: AuditEventType, reason: String, outcome: AuditOutcome = .minorFailure) {
            self.type = type
            self.reason = reason
            self.outcome = outcome
        }
    }

    private let counts = Mutex<[Key: Int]>([:])

    /// Counts one event (a refusal unless `outcome` says otherwise).
    func record(_ type: AuditEventType, reason: String, outcome: AuditOutcome = .minorFailure) {
        counts.withLock { $0[Key(type: type, reason: reason, outcome: outcome), default: 0] += 1 }
    }

    /// The counts so far, emptied; sorted for a stable log order.
    func drain() -> [(key: Key, count: Int)] {
        let drained = counts.withLock { counts in
            defer { counts.removeAll() }
            return counts
        }
        return drained.map { (key: $0.key, count: $0.value) }
            .sorted { ($0.key.type.rawValue, $0.key.outcome.rawValue, $0.key.reason) < ($1.key.type.rawValue, $1.key.outcome.rawValue, $1.key.reason) }
    }

    /// Puts counts back (when writing them failed), so none is lost.
    func restore(_ drained: [(key: Key, count: Int)]) {
        counts.withLock { counts in
            for (key, count) in drained { counts[key, default: 0] += count }
        }
    }
}
