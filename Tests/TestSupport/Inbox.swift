import Synchronization

/// Values a callback delivers (a query's handler, a server's route), collected for a test that
/// waits for them: ``wait(for:)`` returns as soon as enough have arrived, without polling.
///
/// A wait that is never satisfied does not return: give the suite a `.timeLimit`.
public final class Inbox<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<[Value], Never>)] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds a value, waking the waiters it satisfies.
    public func append(_ value: Value) {
        _ = appendCounting(value)
    }

    /// Adds a value and returns how many there are with it: exactly one caller sees each count.
    @discardableResult
    public func appendCounting(_ value: Value) -> Int {
        // The values are copied out only for waiters that are woken, not on every append.
        let (ready, values, count) = state.withLock { state in
            state.values.append(value)
            let count = state.values.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return (ready, ready.isEmpty ? [] : state.values, count)
        }
        for continuation in ready { continuation.resume(returning: values) }
        return count
    }

    /// Every value so far.
    public var values: [Value] { state.withLock { $0.values } }

    /// Returns the values once at least `count` have arrived.
    public func wait(for count: Int) async -> [Value] {
        await withCheckedContinuation { continuation in
            let values = state.withLock { state -> [Value]? in
                if state.values.count >= count { return state.values }
                state.waiters.append((count, continuation))
                return nil
            }
            if let values { continuation.resume(returning: values) }
        }
    }
}
