import FhirBlocks
import FhirBlocksServer
import Synchronization

/// A clock the test moves by hand.
final class ScriptedClock: Sendable {
    private let value: Mutex<Timestamp>

    init(_ start: Timestamp) {
        value = Mutex(start)
    }

    var now: Timestamp { value.withLock { $0 } }

    func advance(seconds: Int64) {
        value.withLock { $0 = $0.adding(seconds: seconds) }
    }

    var trustClock: TrustClock { TrustClock { [self] in self.now } }
}
