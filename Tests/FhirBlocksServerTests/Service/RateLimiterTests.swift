import FhirBlocks
import Testing
import TestSupport
@testable import FhirBlocksServer

/// Token buckets against a clock the test moves.
@Suite struct RateLimiterTests {
    static let t0 = Timestamp(secondsSince1970: 1_800_000_000)

    @Test func burstThenSustainedRate() {
        let limiter = RateLimiter(limit: RateLimit(perSecond: 2, burst: 4))
        for _ in 0..<4 { #expect(limiter.take("a", now: Self.t0) == nil) }
        #expect(limiter.take("a", now: Self.t0) == 1)          // empty: a token in 0.5 s, said as 1 s
        #expect(limiter.take("b", now: Self.t0) == nil)        // another key has its own bucket
        #expect(limiter.take("a", now: Self.t0.adding(milliseconds: 500)) == nil)
        #expect(limiter.take("a", now: Self.t0.adding(milliseconds: 500)) != nil)
        // A long quiet period refills to the burst, no further.
        let later = Self.t0.adding(seconds: 3600)
        for _ in 0..<4 { #expect(limiter.take("a", now: later) == nil) }
        #expect(limiter.take("a", now: later) != nil)
    }

    @Test func memoryStaysBounded() {
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 2), maximumKeys: 100)
        for index in 0..<10_000 {
            _ = limiter.take("caller-\(index)", now: Self.t0.adding(milliseconds: Int64(index)))
        }
        #expect(limiter.count <= 100)
        // The caller that spent its whole burst keeps its empty bucket through a prune.
        let busy = RateLimiter(limit: RateLimit(perSecond: 1, burst: 2), maximumKeys: 4)
        #expect(busy.take("busy", now: Self.t0) == nil && busy.take("busy", now: Self.t0) == nil)
        for index in 0..<3 { _ = busy.take("x\(index)", now: Self.t0) }
        _ = busy.take("new", now: Self.t0)
        #expect(busy.count <= 4)
        #expect(busy.take("busy", now: Self.t0) != nil)
    }
}

/// The limits in the server: per verified identity on signed requests, per address on every
/// route but /health.
@Suite struct RateLimitTests {
    @Test(arguments: TestBackend.available)
    func identityLimitAppliesAfterVerification(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend, configure: { $0.rateLimitPerIdentity = RateLimit(perSecond: 1, burst: 3) })
        try await withTeardown({ await world.close() }) {
            let app = try await world.register(.app("a"))
            let other = try await world.register(.app("b"))
            func list(_ party: TestParty) async throws -> ServiceResponse {
                await world.smoac("permission/fetchPermissionsGivenToMe",
                                  body: try world.signed(FetchPermissionsGivenToMeRequest(envelope: world.envelope(party)), by: party))
            }
            for _ in 0..<3 { #expect(try await list(app).status == 200) }
            let limited = try await list(app)
            #expect(limited.status == 429 && limited.headers.contains { $0.0 == "Retry-After" && $0.1 == "1" })
            // Another identity is not affected; a forged request in the app's name does not
            // spend the app's allowance (it fails before), and time refills it.
            #expect(try await list(other).status == 200)
            world.clock.advance(seconds: 1)
            var forged = FetchPermissionsGivenToMeRequest(envelope: world.envelope(app))
            try RequestSigner.sign(&forged, with: other.key)
            #expect(await world.smoac("permission/fetchPermissionsGivenToMe", body: forged.jsonBytes).status == 401)
            #expect(try await list(app).status == 200)
        }
    }

    @Test func addressLimitLeavesHealthAnswering() async throws {
        let world = try await TestWorld.make(.sqlite, configure: { $0.rateLimitPerAddress = RateLimit(perSecond: 1, burst: 5) })
        try await withTeardown({ await world.close() }) {
            try await RouterExchange.with(world.service) { exchange in
                for _ in 0..<5 { #expect(try await exchange.send(.GET, "/util/ping").status == 200) }
                let limited = try await exchange.send(.GET, "/util/ping")
                #expect(limited.status == 429 && limited.headers.contains { $0.0.lowercased() == "retry-after" })
                #expect(try await exchange.send(.GET, "/health").status == 200)
                world.clock.advance(seconds: 2)
                #expect(try await exchange.send(.GET, "/util/ping").status == 200)
                let metrics = String(decoding: try await exchange.send(.GET, "/metrics").body, as: UTF8.self)
                #expect(metrics.contains(#"fhirblocks_rate_limited_total{kind="address"} 1"#), "\(metrics)")
            }
        }
    }
}
