import Crypto
import Foundation
import SampleSignatures
import Testing

/// Signing and verifying in this implementation: round trip and every typed verdict.
struct SampleSignatureTests {
    static let content = SampleSignatureContent(
        typeIdentifier: "HKQuantityTypeIdentifierBloodGlucose", value: 97.5, unit: "mg/dL",
        startDate: Date(timeIntervalSince1970: 1_795_680_000.25), endDate: Date(timeIntervalSince1970: 1_795_680_060),
        syncIdentifier: "meter-42/7")

    let key = P256.Signing.PrivateKey()

    func verdict(_ value: String?, trusting keys: [P256.Signing.PublicKey]? = nil,
                 sample: SampleSignatureContent? = Self.content) -> SampleSignatureVerdict {
        SampleSignatureVerifier(trustedKeys: keys ?? [key.publicKey]).verdict(base64: value) { _ in sample }
    }

    @Test func roundTripVerifiesAndKeepsTheContent() throws {
        let signature = try SampleSignature.sign(Self.content, with: key)
        let parsed = try SampleSignature(base64Encoded: signature.base64Encoded)
        #expect(parsed == signature)
        #expect(parsed.signer == DeviceKeyIdentifier(key.publicKey))
        #expect(try SampleSignatureContent(derEncoded: parsed.content) == Self.content)
        #expect(verdict(signature.base64Encoded) == .valid(signer: DeviceKeyIdentifier(key.publicKey)))
        // Without a sync identifier, and for a category sample (no unit).
        let category = SampleSignatureContent(typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis", value: 4, unit: "",
                                              startDate: Date(timeIntervalSince1970: 0), endDate: Date(timeIntervalSince1970: 5400))
        let signed = try SampleSignature.sign(category, with: key).base64Encoded
        #expect(verdict(signed, sample: category).isValid)
    }

    @Test func unsignedSamplesAreReportedAsSuch() {
        #expect(verdict(nil) == .unsigned)
    }

    @Test func aChangedValueOrDateIsAContentMismatch() throws {
        let signed = try SampleSignature.sign(Self.content, with: key).base64Encoded
        let signer = DeviceKeyIdentifier(key.publicKey)
        var changed = Self.content
        changed.value = 97.6
        #expect(verdict(signed, sample: changed) == .contentMismatch(signer: signer, field: .value))
        changed = Self.content
        changed.startMilliseconds += 1
        #expect(verdict(signed, sample: changed) == .contentMismatch(signer: signer, field: .startDate))
        changed = Self.content
        changed.endMilliseconds -= 60_000
        #expect(verdict(signed, sample: changed) == .contentMismatch(signer: signer, field: .endDate))
        changed = Self.content
        changed.typeIdentifier = "HKQuantityTypeIdentifierHeartRate"
        #expect(verdict(signed, sample: changed) == .contentMismatch(signer: signer, field: .type))
        changed = Self.content
        changed.syncIdentifier = "meter-42/8"
        #expect(verdict(signed, sample: changed) == .contentMismatch(signer: signer, field: .syncIdentifier))
        // A sample with no value in the signed unit.
        #expect(verdict(signed, sample: nil) == .contentMismatch(signer: signer, field: .unit))
    }

    @Test func anotherKeyIsUnknownAndAForgedSignatureIsBad() throws {
        let other = P256.Signing.PrivateKey()
        let signed = try SampleSignature.sign(Self.content, with: other).base64Encoded
        #expect(verdict(signed) == .unknownKey(DeviceKeyIdentifier(other.publicKey)))
        // Signed by another key but naming the trusted one: the signature does not verify.
        let forged = try Self.replacing(DeviceKeyIdentifier(other.publicKey).bytes, with: DeviceKeyIdentifier(key.publicKey).bytes,
                                        in: SampleSignature(base64Encoded: signed).derEncoded())
        #expect(verdict(Data(forged).base64EncodedString()) == .badSignature(signer: DeviceKeyIdentifier(key.publicKey)))
    }

    @Test func changedSignedBytesAreABadSignature() throws {
        let signature = try SampleSignature.sign(Self.content, with: key)
        // The value's eight bytes inside the signed content, changed in the DER.
        let value = withUnsafeBytes(of: Self.content.value.bitPattern.bigEndian, Array.init)
        var other = Self.content
        other.value = 97.25
        let tampered = Self.replacing(value, with: withUnsafeBytes(of: other.value.bitPattern.bigEndian, Array.init), in: signature.derEncoded())
        #expect(verdict(Data(tampered).base64EncodedString(), sample: other) == .badSignature(signer: signature.signer))
    }

    @Test func garbageAndTruncatedValuesAreMalformed() throws {
        let der = try SampleSignature.sign(Self.content, with: key).derEncoded()
        #expect(verdict("not base64!") == .malformed(SampleSignatureError(.notBase64, "the signature is not base64 text")))
        for length in [0, 1, 2, 10, der.count / 2, der.count - 1] {
            let truncated = Data(der.prefix(length)).base64EncodedString()
            guard case .malformed(let error) = verdict(truncated) else {
                Issue.record("a signature truncated to \(length) bytes was not malformed")
                continue
            }
            #expect(error.kind == .malformedSignedData)
        }
        #expect(verdict(Data(der + [0]).base64EncodedString()).label == "malformed")
        #expect(verdict(Data("hello, world".utf8).base64EncodedString()).label == "malformed")
    }

    @Test func otherAlgorithmsAreUnsupported() throws {
        let der = try SampleSignature.sign(Self.content, with: key).derEncoded()
        // id-sha256 (…2.1) → id-sha384 (…2.2) in both places it appears.
        let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
        let sha384: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02]
        let changed = Self.replacing(sha256, with: sha384, in: der, all: true)
        #expect(verdict(Data(changed).base64EncodedString()) == .unsupportedAlgorithm("2.16.840.1.101.3.4.2.2"))
        // ecdsa-with-SHA256 → ecdsa-with-SHA384.
        let ecdsa256: [UInt8] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]
        let ecdsa384: [UInt8] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]
        let other = Self.replacing(ecdsa256, with: ecdsa384, in: der)
        #expect(verdict(Data(other).base64EncodedString()) == .unsupportedAlgorithm("1.2.840.10045.4.3.3"))
    }

    @Test func contentThatCannotBeEncodedIsRefused() {
        var content = Self.content
        content.value = .nan
        #expect(throws: SampleSignatureError.self) { try SampleSignature.sign(content, with: key) }
        let ancient = SampleSignatureContent(typeIdentifier: "HKQuantityTypeIdentifierStepCount", value: 1, unit: "count",
                                             startDate: .distantPast, endDate: Date(timeIntervalSince1970: 0))
        #expect(throws: SampleSignatureError.self) { try SampleSignature.sign(ancient, with: key) }
    }

    @Test func keyIdentifiersAreTheSHA1OfThePointInHex() throws {
        let identifier = DeviceKeyIdentifier(key.publicKey)
        #expect(identifier.bytes == Array(Insecure.SHA1.hash(data: key.publicKey.x963Representation)))
        #expect(identifier.description.count == 40)
        #expect(DeviceKeyIdentifier(hex: identifier.description) == identifier)
        #expect(DeviceKeyIdentifier(hex: identifier.description.uppercased()) == identifier)
        #expect(DeviceKeyIdentifier(hex: "abc") == nil)
        #expect(DeviceKeyIdentifier(hex: "zz") == nil)
    }

    /// `bytes` with the first (or every) occurrence of `old` replaced by `new` (same length).
    static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8], all: Bool = false) -> [UInt8] {
        var result = bytes
        var index = 0
        var replaced = false
        while index + old.count <= result.count {
            if Array(result[index..<(index + old.count)]) == old {
                result.replaceSubrange(index..<(index + old.count), with: new)
                replaced = true
                if !all { break }
                index += old.count
            } else {
                index += 1
            }
        }
        #expect(replaced, "the bytes to replace were not found")
        return result
    }
}
