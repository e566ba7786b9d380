import Benchmark
import Crypto
import Foundation
import QRCode
import SmartHealthCards

// SMART Health Cards against raw swift-crypto P-256, in one run on one machine:
//
// - Verify one card: `SHCVerifier.verify(_:)` of the official example 00 JWS (parse, base64url,
//   header, raw inflate, JSON, claims, the key from the issuer's JWKS through StaticKeyResolver,
//   ES256, revocation against the issuer's CRL, the FHIR bundle checks), `now` fixed. The ceiling
//   is `P256.Signing.PublicKey.isValidSignature` of the same signature over the same signing
//   input, with the key and signature already parsed. The floor adds to that ceiling the one
//   other step no verifier can skip, the raw inflate of the payload (system zlib, windowBits
//   -15, into a temporary buffer), so the table shows how much of the rest is left to
//   parsing and checking. One iteration is one verification; each
//   measurement runs 1,000 of them (`scaledIterations`) and the table shows the time of one.
//   The end-to-end side is measured twice: called from a nonisolated async context (a server
//   handler, a task: verify runs on the caller's executor, no hop), and called from the main
//   actor (each call hops to the global executor and back, as from UI or main-actor code).
// - Verify 1,000 cards on every core: a task group with one child task per active processor,
//   each verifying its share of 1,000 separate copies of the card; the ceiling verifies the
//   same signatures the same way. The group runs on `CoreExecutor` (one thread per core; see
//   there for why not on the default executor inside this harness).
// - Issue one card: `SHCIssuer.issue` of the covid-vaccines bundle (minimize, serialize, raw
//   DEFLATE, ES256), then `SHCNumeric.encode` and `QRCode.smartHealthCard(numeric:)`; the
//   ceiling is one P-256 signature of a message as long as the card's signing input.
//
// Not timed: reading the files, building keys and verifiers, and checking once that every
// side's answer is right.

/// Cards verified or issued per second of the timed loop.
let cardsPerSecond = BenchmarkMetric.custom("Throughput (cards/s)", polarity: .prefersLarger, useScalingFactor: false)
/// Process CPU time over wall time during a batch, in percent of one core (200 = two cores busy).
let coresBusy = BenchmarkMetric.custom("CPU busy (% of one core)", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    // `scripts/bench.sh --check` allows each figure a 25 % fall of its median from the stored baseline.
    let measured: [BenchmarkMetric] = [.wallClock, cardsPerSecond, coresBusy]
    Benchmark.defaultConfiguration.thresholds = Dictionary(uniqueKeysWithValues: measured.map { ($0, BenchmarkThresholds(relative: [.p50: 25.0])) })
    // One iteration is one card; a measurement is 1,000 of them.
    let perCard = Benchmark.Configuration(
        metrics: [.wallClock, cardsPerSecond],
        timeUnits: .nanoseconds,
        units: [cardsPerSecond: .count],
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .seconds(15),
        maxIterations: 60
    )
    let batch = Benchmark.Configuration(
        metrics: [.wallClock, cardsPerSecond, coresBusy],
        timeUnits: .microseconds,
        units: [cardsPerSecond: .count, coresBusy: .count],
        warmupIterations: 2,
        maxDuration: .seconds(15),
        maxIterations: 100
    )
    let issue = Benchmark.Configuration(
        metrics: [.wallClock, cardsPerSecond],
        timeUnits: .microseconds,
        units: [cardsPerSecond: .count],
        warmupIterations: 5,
        maxDuration: .seconds(15),
        maxIterations: 2_000
    )

    // MARK: Verify one card

    Benchmark("Verify one card (SHCVerifier, end to end)", configuration: perCard) { benchmark, fixture in
        let clock = ContinuousClock()
        let started = clock.now
        for _ in benchmark.scaledIterations {
            let report = await fixture.verifier.verify(fixture.jws)
            precondition(report.signatureValid)
            blackHole(report)
        }
        benchmark.measurement(cardsPerSecond, Rate.perSecond(benchmark.scaledIterations.count, started.duration(to: clock.now)))
    } setup: { () async throws -> VerifyFixture in
        let fixture = try await CardFixtures.verifyFixture()
        print("card: \(fixture.origin)")
        return fixture
    }

    Benchmark("Verify one card (SHCVerifier, end to end, called from the main actor)", configuration: perCard) { benchmark, fixture in
        let clock = ContinuousClock()
        let started = clock.now
        await MainActorCaller.verify(fixture, times: benchmark.scaledIterations.count)
        benchmark.measurement(cardsPerSecond, Rate.perSecond(benchmark.scaledIterations.count, started.duration(to: clock.now)))
    } setup: { () async throws -> VerifyFixture in
        try await CardFixtures.verifyFixture()
    }

    Benchmark("Verify one card (ceiling: raw P-256 verify)", configuration: perCard) { benchmark, fixture in
        let clock = ContinuousClock()
        let started = clock.now
        for _ in benchmark.scaledIterations {
            let valid = fixture.publicKey.isValidSignature(fixture.signature, for: fixture.signingInput)
            precondition(valid)
            blackHole(valid)
        }
        benchmark.measurement(cardsPerSecond, Rate.perSecond(benchmark.scaledIterations.count, started.duration(to: clock.now)))
    } setup: { () async throws -> VerifyFixture in
        try await CardFixtures.verifyFixture()
    }

    Benchmark("Verify one card (floor: raw P-256 verify + raw inflate of the payload)", configuration: perCard) { benchmark, fixture in
        let clock = ContinuousClock()
        let started = clock.now
        for _ in benchmark.scaledIterations {
            let valid = fixture.publicKey.isValidSignature(fixture.signature, for: fixture.signingInput)
            let size = RawInflateFloor.inflatedSize(fixture.compressedPayload)
            precondition(valid && size == fixture.payloadSize)
            blackHole(size)
        }
        benchmark.measurement(cardsPerSecond, Rate.perSecond(benchmark.scaledIterations.count, started.duration(to: clock.now)))
    } setup: { () async throws -> VerifyFixture in
        try await CardFixtures.verifyFixture()
    }

    Benchmark("Verify one card (raw inflate of the payload alone)", configuration: perCard) { benchmark, fixture in
        let clock = ContinuousClock()
        let started = clock.now
        for _ in benchmark.scaledIterations {
            let size = RawInflateFloor.inflatedSize(fixture.compressedPayload)
            precondition(size == fixture.payloadSize)
            blackHole(size)
        }
        benchmark.measurement(cardsPerSecond, Rate.perSecond(benchmark.scaledIterations.count, started.duration(to: clock.now)))
    } setup: { () async throws -> VerifyFixture in
        try await CardFixtures.verifyFixture()
    }

    // MARK: Verify 1,000 cards on every core

    Benchmark("Verify 1,000 cards on every core (SHCVerifier)", configuration: batch) { benchmark, fixture in
        let cores = CoreExecutor.shared.threadCount
        let timer = BatchTimer()
        let valid = await withTaskExecutorPreference(CoreExecutor.shared) { await withTaskGroup(of: Int.self) { group in
            for share in Batch.shares(fixture.cards.count, cores) {
                group.addTask {
                    var valid = 0
                    for index in share {
                        let report = await fixture.verifier.verify(fixture.cards[index])
                        if report.signatureValid { valid += 1 }
                    }
                    return valid
                }
            }
            return await group.reduce(0, +)
        } }
        timer.record(benchmark, cards: fixture.cards.count)
        precondition(valid == fixture.cards.count)
    } setup: { () async throws -> BatchFixture in
        try await CardFixtures.batchFixture()
    }

    Benchmark("Verify 1,000 cards on every core (ceiling: raw P-256 verify)", configuration: batch) { benchmark, fixture in
        let cores = CoreExecutor.shared.threadCount
        let timer = BatchTimer()
        let valid = await withTaskExecutorPreference(CoreExecutor.shared) { await withTaskGroup(of: Int.self) { group in
            for share in Batch.shares(fixture.cards.count, cores) {
                group.addTask {
                    var valid = 0
                    for index in share where fixture.publicKey.isValidSignature(fixture.signatures[index], for: fixture.signingInputs[index]) {
                        valid += 1
                    }
                    return valid
                }
            }
            return await group.reduce(0, +)
        } }
        timer.record(benchmark, cards: fixture.cards.count)
        precondition(valid == fixture.cards.count)
    } setup: { () async throws -> BatchFixture in
        try await CardFixtures.batchFixture()
    }

    // MARK: Issue one card

    Benchmark("Issue one card (minimize, deflate, sign, QR)", configuration: issue) { benchmark, fixture in
        let clock = ContinuousClock()
        let started = clock.now
        for _ in benchmark.scaledIterations {
            blackHole(try CardFixtures.issueCard(fixture))
        }
        benchmark.measurement(cardsPerSecond, Rate.perSecond(benchmark.scaledIterations.count, started.duration(to: clock.now)))
    } setup: { () throws -> IssueFixture in
        try CardFixtures.issueFixture()
    }

    Benchmark("Issue one card (ceiling: raw P-256 sign)", configuration: perCard) { benchmark, fixture in
        let clock = ContinuousClock()
        let started = clock.now
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.privateKey.signature(for: fixture.message))
        }
        benchmark.measurement(cardsPerSecond, Rate.perSecond(benchmark.scaledIterations.count, started.duration(to: clock.now)))
    } setup: { () throws -> IssueFixture in
        try CardFixtures.issueFixture()
    }
}

/// Calls the verifier from the main actor: every `verify` (nonisolated async) leaves the main
/// actor for the global executor and comes back, as it would from main-actor application code.
@MainActor
enum MainActorCaller {
    static func verify(_ fixture: VerifyFixture, times: Int) async {
        for _ in 0..<times {
            let report = await fixture.verifier.verify(fixture.jws)
            precondition(report.signatureValid)
            blackHole(report)
        }
    }
}

enum Batch {
    /// `count` indices cut into `parts` contiguous shares of nearly equal size.
    static func shares(_ count: Int, _ parts: Int) -> [Range<Int>] {
        let parts = max(1, min(parts, count))
        return (0..<parts).map { part in (part * count / parts)..<((part + 1) * count / parts) }
    }
}

/// Wall clock and process CPU time over one batch.
struct BatchTimer {
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private let cpuStarted: Duration

    init() {
        cpuStarted = ProcessCPU.now()
        started = clock.now
    }

    func record(_ benchmark: Benchmark, cards: Int) {
        let elapsed = started.duration(to: clock.now)
        let cpu = ProcessCPU.now() - cpuStarted
        benchmark.measurement(cardsPerSecond, Rate.perSecond(cards, elapsed))
        benchmark.measurement(coresBusy, elapsed.seconds > 0 ? Int((cpu.seconds / elapsed.seconds * 100).rounded()) : 0)
    }
}

enum Rate {
    static func perSecond(_ count: Int, _ elapsed: Duration) -> Int {
        elapsed.seconds > 0 ? Int((Double(count) / elapsed.seconds).rounded()) : 0
    }
}
