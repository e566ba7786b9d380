import Crypto
import Foundation
import SampleSignatures
import Testing
import TestSupport

/// Random mutations of valid signatures: every one yields a verdict (never a crash), and none
/// that changed a byte is valid.
struct SampleSignatureFuzzTests {
    @Test(arguments: 0..<4)
    func mutatedSignaturesNeverCrashOrVerify(seed: UInt64) throws {
        var random = SplitMix64(seed: 0x5161_0000 + seed)
        let key = P256.Signing.PrivateKey()
        let content = SampleSignatureContent(typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: Double(random.int(40...180)),
                                             unit: "count/min", startDate: Date(timeIntervalSince1970: Double(random.int(0...2_000_000_000))),
                                             endDate: Date(timeIntervalSince1970: 2_000_000_001), syncIdentifier: random.chance(0.5) ? "s" : nil)
        let original = try SampleSignature.sign(content, with: key).derEncoded()
        let verifier = SampleSignatureVerifier(trustedKeys: [key.publicKey])
        var labels: [String: Int] = [:]
        for _ in 0..<500 {
            var bytes = original
            for _ in 0..<random.int(1...4) {
                switch random.below(5) {
                case 0 where !bytes.isEmpty: bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next())
                case 1 where !bytes.isEmpty: bytes[random.below(bytes.count)] ^= UInt8(1) << UInt8(random.below(8))
                case 2 where !bytes.isEmpty: bytes.remove(at: random.below(bytes.count))
                case 3: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: random.below(bytes.count + 1))
                default: bytes = Array(bytes.prefix(random.below(bytes.count + 1)))
                }
            }
            let verdict = verifier.verdict(base64: Data(bytes).base64EncodedString()) { _ in content }
            labels[verdict.label, default: 0] += 1
            if bytes != original { #expect(!verdict.isValid) }
            // Decoding the content alone never crashes either.
            _ = try? SampleSignatureContent(derEncoded: bytes)
        }
        // The mutations reach past the outer parse.
        #expect(labels["malformed", default: 0] > 0)
        #expect(labels.keys.count >= 3)
    }
}
