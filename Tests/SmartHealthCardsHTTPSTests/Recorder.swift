import Synchronization

/// Collects values handed to a `@Sendable` callback.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func record(_ value: Value) { values.withLock { $0.append(value) } }

    var recorded: [Value] { values.withLock { $0 } }
}
