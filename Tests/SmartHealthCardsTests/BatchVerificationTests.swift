import Foundation
@testable import SmartHealthCards
import Testing

@Suite("Verifying many cards on every core")
struct BatchVerificationTests {
    /// `count` cards from one issuer, every third one signed by a key the issuer does not publish.
    static func cards(count: Int) throws -> (cards: [SHCInput.Card], verifier: SHCVerifier) {
        let key = SHCIssuerKey.generate()
        let stranger = SHCIssuerKey.generate()
        let issuer = try SHCIssuer(key: key, issuer: TestCards.issuer)
        let forger = try SHCIssuer(key: stranger, issuer: TestCards.issuer)
        let bundle = TestCards.bundle.serialized()
        let nbf = Date(timeIntervalSince1970: TestCards.nbf)
        var cards: [SHCInput.Card] = []
        for index in 0..<count {
            let signer = index % 3 == 2 ? forger : issuer
            cards.append(SHCInput.Card(jws: try signer.issue(bundle: bundle, types: [SHCCredentialType.immunization], nbf: nbf,
                                                            rid: "r\(index)"), form: .jws))
        }
        let verifier = SHCVerifier(resolver: StaticKeyResolver([TestCards.issuer: SHCJWKSet(keys: [key.publicJWK])]), now: TestCards.now)
        return (cards, verifier)
    }

    @Test("Reports come in the cards' order, a chunk at a time, the same as one by one",
          arguments: [(1, 256), (2, 1), (2, 7), (3, 256), (8, 5)])
    func orderAndChunks(_ concurrency: Int, _ chunkSize: Int) async throws {
        let (cards, verifier) = try Self.cards(count: 23)
        var expected: [SHCVerificationReport] = []
        for card in cards { expected.append(await verifier.verify(card)) }

        var reports: [SHCVerificationReport] = []
        var chunkStarts: [Int] = []
        await verifier.verifyAll(cards, concurrency: concurrency, chunkSize: chunkSize) { firstIndex, chunk in
            #expect(firstIndex == reports.count)
            #expect(chunk.count <= chunkSize && !chunk.isEmpty)
            chunkStarts.append(firstIndex)
            reports += chunk
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(reports) == encoder.encode(expected))
        #expect(chunkStarts == Array(stride(from: 0, to: cards.count, by: chunkSize)))
        // The forged ones (every third) are the invalid ones.
        #expect(reports.enumerated().allSatisfy { $0.element.isValid == ($0.offset % 3 != 2) })
    }

    @Test("No cards, no calls; an error thrown by the caller stops the batch")
    func emptyAndThrowing() async throws {
        let (cards, verifier) = try Self.cards(count: 6)
        var calls = 0
        await verifier.verifyAll([]) { _, _ in calls += 1 }
        #expect(calls == 0)
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await verifier.verifyAll(cards, chunkSize: 2) { firstIndex, _ in
                calls += 1
                if firstIndex == 2 { throw Stop() }
            }
        }
        #expect(calls == 2)
    }

    @Test("A transform runs once per card with its index, and its outputs come in the cards' order",
          arguments: [(1, 4), (2, 3), (4, 256)])
    func transformOutputs(_ concurrency: Int, _ chunkSize: Int) async throws {
        let (cards, verifier) = try Self.cards(count: 31)
        var outputs: [String] = []
        await verifier.verifyAll(cards, concurrency: concurrency, chunkSize: chunkSize, transform: { index, report in
            "\(index):\(report.isValid):\(report.claims?.rid ?? "-")"
        }) { firstIndex, chunk in
            #expect(firstIndex == outputs.count)
            outputs += chunk
        }
        #expect(outputs == (0..<31).map { "\($0):\($0 % 3 != 2):r\($0)" })
    }

    @Test("When the caller throws, the batch stops within the chunks already in flight")
    func throwingStopsTheWorkers() async throws {
        let (cards, verifier) = try Self.cards(count: 60)
        let verified = Counter()
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await verifier.verifyAll(cards, concurrency: 2, chunkSize: 5, transform: { index, _ in
                verified.increment()
                return index
            }) { firstIndex, _ in
                if firstIndex == 0 { throw Stop() }
            }
        }
        // The first chunk, and at most the two chunks verified ahead of it, were verified.
        #expect(verified.value >= 5 && verified.value <= 15)
    }

    /// A count shared with worker tasks.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
