import Synchronization

/// One request at a time per passcode link on this server, the others waiting their turn in
/// order (issue 37).
///
/// A passcode is checked by taking one attempt from the link's budget before scrypt runs and
/// giving it back when the passcode was right: so no more wrong passcodes are ever evaluated than
/// the limit. While the last attempt is taken, though, the link reads as locked; without this
/// gate a request arriving during that evaluation (another doctor with the right passcode, or a
/// file location of a manifest already served) was answered the 404 of a locked link, and logged
/// `refused-locked`, although the link was not locked and stayed open. Inside the gate a request
/// reads the link after the evaluation before it, so it sees what that evaluation decided.
///
/// The gate is in memory: servers sharing a database each hold their own, so a request at one
/// server during the evaluation of the last attempt at another is still answered as locked
/// (the budget itself is shared and never exceeded). Memory is bounded by the requests in
/// flight: a link's entry is dropped when no one is inside or waiting.
final class SharedLinkPasscodeGate: Sendable {
    /// For each link with a request inside, the requests waiting to enter after it, in order.
    private let waiting = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    init() {}

    /// Runs `body` alone among the requests for link `id` that pass this gate.
    func serialized<T>(_ id: String, _ body: () async -> T) async -> T {
        await enter(id)
        let result = await body()
        leave(id)
        return result
    }

    /// How many links have a request inside (for tests: 0 once every request has left).
    var linksHeld: Int { waiting.withLock { $0.count } }

    private func enter(_ id: String) async {
        let entered = waiting.withLock { links -> Bool in
            guard links[id] == nil else { return false }
            links[id] = []
            return true
        }
        if entered { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enteredNow = waiting.withLock { links -> Bool in
                guard var queue = links[id] else {
                    // The request inside left meanwhile: enter at once.
                    links[id] = []
                    return true
                }
                queue.append(continuation)
                links[id] = queue
                return false
            }
            if enteredNow { continuation.resume() }
        }
    }

    /// Hands the gate to the first request waiting, or frees it.
    private func leave(_ id: String) {
        let next = waiting.withLock { links -> CheckedContinuation<Void, Never>? in
            guard var queue = links[id], !queue.isEmpty else {
                links[id] = nil
                return nil
            }
            let first = queue.removeFirst()
            links[id] = queue
            return first
        }
        next?.resume()
    }
}
