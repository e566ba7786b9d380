import Testing
@testable import FhirBlocks

@Suite struct ReplayGuardTests {
    let guardian = ReplayGuard()
    let caller = csi(AppendixA.granter)

    @Test func dateTimeWindowBothDirections() throws {
        try guardian.checkDateTime(AppendixA.dateTime, now: at(300))
        try guardian.checkDateTime(AppendixA.dateTime, now: at(-300))
        #expect(throws: SMOACError.staleDateTime(skewSeconds: -301)) { try guardian.checkDateTime(AppendixA.dateTime, now: at(301)) }
        #expect(throws: SMOACError.staleDateTime(skewSeconds: 301)) { try guardian.checkDateTime(AppendixA.dateTime, now: at(-301)) }
        #expect(throws: SMOACError.self) { try guardian.checkDateTime("yesterday", now: at(0)) }
        #expect(throws: SMOACError.staleDateTime(skewSeconds: -60)) { try ReplayGuard(policy: ReplayPolicy(windowSeconds: 30)).checkDateTime(AppendixA.dateTime,
            now: at(60)) }
    }

    @Test func replayedNonceIsRejected() async throws {
        let store = InMemoryNonceStore()
        try await guardian.check(csiGuid: caller, dateTime: AppendixA.dateTime, nonce: AppendixA.nonce, now: at(1), store: store)
        await #expect(throws: SMOACError.replayedNonce) {
            try await guardian.check(csiGuid: caller, dateTime: AppendixA.dateTime, nonce: AppendixA.nonce, now: at(2), store: store)
        }
        // Still remembered at the end of the acceptance window, from a later dateTime too.
        await #expect(throws: SMOACError.replayedNonce) {
            try await guardian.check(csiGuid: caller, dateTime: at(500).wireText, nonce: AppendixA.nonce, now: at(550), store: store)
        }
    }

    @Test func sameNonceFromAnotherCsiIsAllowed() async throws {
        let store = InMemoryNonceStore()
        try await guardian.check(csiGuid: caller, dateTime: AppendixA.dateTime, nonce: AppendixA.nonce, now: at(0), store: store)
        try await guardian.check(csiGuid: csi(AppendixA.grantee), dateTime: AppendixA.dateTime, nonce: AppendixA.nonce, now: at(0), store: store)
        #expect(await store.count(at: at(0)) == 2)
    }

    @Test func staleRequestDoesNotConsumeTheNonce() async throws {
        let store = InMemoryNonceStore()
        await #expect(throws: SMOACError.staleDateTime(skewSeconds: -1000)) {
            try await guardian.check(csiGuid: caller, dateTime: AppendixA.dateTime, nonce: AppendixA.nonce, now: at(1000), store: store)
        }
        #expect(await store.count(at: at(0)) == 0)
        await #expect(throws: SMOACError.self) {
            try await guardian.check(csiGuid: caller, dateTime: AppendixA.dateTime, nonce: "bad nonce", now: at(0), store: store)
        }
    }

    @Test func checksASignedRequestEnvelope() async throws {
        let store = InMemoryNonceStore()
        let request = FetchPermissionsGivenToMeRequest(envelope: SMOACEnvelope(csiGuid: AppendixA.granter, dateTime: AppendixA.dateTime,
                                                                               nonce: AppendixA.nonce, signature: "x"))
        try await guardian.check(request, now: at(0), store: store)
        await #expect(throws: SMOACError.replayedNonce) { try await guardian.check(request, now: at(0), store: store) }
    }

    @Test func storeForgetsExpiredEntries() async throws {
        let store = InMemoryNonceStore()
        let key = NonceKey(namespace: .smoacNonce, owner: "a", value: "n")
        #expect(try await store.insertIfAbsent(key, expiresAt: at(10), now: at(0)))
        #expect(try await !store.insertIfAbsent(key, expiresAt: at(20), now: at(9)))
        #expect(try await store.insertIfAbsent(key, expiresAt: at(200), now: at(100)))
        #expect(key.description == "nonce:a:n")
    }
}
