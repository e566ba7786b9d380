import Synchronization

/// How many state-changing requests (uploads and forms) hold their bodies in memory at once.
///
/// A body is read whole, up to the upload limit, and a multipart upload is copied once more
/// while its files are spooled to temporary files. Without a bound, memory grows with the number
/// of uploads that arrive together (eight 7.8 MB uploads once peaked at 358 MB). With it, the
/// peak is `permits` uploads whatever arrives: the others wait, their bodies unread in the
/// socket, until a permit is free; beyond `maximumWaiting` they are refused at once. `health ui`
/// has one person at its keyboard, so a queue of two is never felt.
final class UploadGate: Sendable {
    private struct State {
        var inUse = 0
        var mostInUse = 0
        var waiting: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = Mutex(State())
    /// How many requests may hold a body at once.
    let permits: Int
    /// How many may wait for a permit; one more is refused.
    let maximumWaiting: Int

    init(permits: Int = 2, maximumWaiting: Int = 64) {
        self.permits = max(1, permits)
        self.maximumWaiting = maximumWaiting
    }

    /// The most permits ever held at once (for the tests).
    var mostInUse: Int { state.withLock { $0.mostInUse } }
    /// How many wait for a permit now (for the tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` holding a permit, waiting for one when all are held; nil, without running
    /// `body`, when `maximumWaiting` requests wait already.
    nonisolated(nonsending) func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T? {
        guard await acquire() else { return nil }
        defer { release() }
        return try await body()
    }

    private enum Decision {
        case granted, refused, queued
    }

    private func acquire() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let decision = state.withLock { state -> Decision in
                if state.inUse < permits {
                    state.inUse += 1
                    state.mostInUse = max(state.mostInUse, state.inUse)
                    return .granted
                }
                guard state.waiting.count < maximumWaiting else { return .refused }
                state.waiting.append(continuation)
                return .queued
            }
            switch decision {
            case .granted: continuation.resume(returning: true)
            case .refused: continuation.resume(returning: false)
            case .queued: break
            }
        }
    }

    /// Hands the permit to the first waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiting.isEmpty else {
                state.inUse -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume(returning: true)
    }
}
