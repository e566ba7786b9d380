/// Runs `body`, then `teardown`, whether `body` returns or throws: a test's clean-up (closing a
/// store, stopping a server, shutting a client down) is awaited before the test ends, never left
/// to a detached task (`defer { Task { … } }`) that may run after the next test started, or never.
public func withTeardown<Result>(_ teardown: () async -> Void, _ body: () async throws -> Result) async throws -> Result {
    do {
        let result = try await body()
        await teardown()
        return result
    } catch {
        await teardown()
        throw error
    }
}
