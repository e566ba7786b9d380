import Crypto
import Foundation
import SampleSignatures
import Testing
import TestSupport

/// Cross-checks with an independent implementation: scripts/sample-signature-peer.py (DER by
/// hand, ECDSA from Python `cryptography`). Runs when OPENHEALTHKIT_PEERS_VENV names a virtual
/// environment with `cryptography` (jwcrypto brings it; scripts/test.sh makes the venv).
@Suite(.enabled(if: PythonPeer.python != nil,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with cryptography to run the sample-signature peer tests"))
struct SampleSignaturePeerTests {
    let key = P256.Signing.PrivateKey()
    let content = SampleSignatureContent(typeIdentifier: "HKQuantityTypeIdentifierBloodGlucose", value: 5.4,
                                         unit: "mmol<180.15588000005408>/L", startDate: Date(timeIntervalSince1970: 1_795_680_000.125),
                                         endDate: Date(timeIntervalSince1970: 1_795_680_030), syncIdentifier: "glucometer-Ü-7")

    @Test func theirSignatureVerifiesHere() throws {
        let signed = try SignaturePeer.sign(content, key: key)
        let verifier = SampleSignatureVerifier(trustedKeys: [key.publicKey])
        #expect(verifier.verdict(base64: signed) { _ in content } == .valid(signer: DeviceKeyIdentifier(key.publicKey)))
        // Their DER is byte for byte ours apart from the ECDSA signature (which is randomized).
        let theirs = try SampleSignature(base64Encoded: signed)
        #expect(theirs.content == (try content.derEncoded()))
        // A changed value, another key, another digest: the same typed verdicts as ours.
        var changed = content
        changed.value = 5.5
        #expect(verifier.verdict(base64: signed) { _ in changed } == .contentMismatch(signer: theirs.signer, field: .value))
        let stranger = try SignaturePeer.sign(content, key: P256.Signing.PrivateKey())
        #expect(verifier.verdict(base64: stranger) { _ in content }.label == "unknown-key")
        let sha384 = try SignaturePeer.sign(content, key: key, digest: "sha384")
        #expect(verifier.verdict(base64: sha384) { _ in content } == .unsupportedAlgorithm("2.16.840.1.101.3.4.2.2"))
    }

    @Test(arguments: [false, true])
    func ourSignatureVerifiesThere(withSyncIdentifier: Bool) throws {
        var content = self.content
        if !withSyncIdentifier { content.syncIdentifier = nil }
        let signed = try SampleSignature.sign(content, with: key).base64Encoded
        let (status, output) = try SignaturePeer.verify(signed, publicKey: key.publicKey)
        #expect(status == 0)
        let fields = try JSONSerialization.jsonObject(with: Data(output)) as? [String: Any]
        #expect(fields?["type"] as? String == content.typeIdentifier)
        #expect(fields?["value"] as? Double == content.value)
        #expect(fields?["unit"] as? String == content.unit)
        #expect((fields?["start"] as? NSNumber)?.int64Value == content.startMilliseconds)
        #expect((fields?["end"] as? NSNumber)?.int64Value == content.endMilliseconds)
        #expect(fields?["sync"] as? String == content.syncIdentifier)
        // Another key, or a changed byte: the peer refuses.
        #expect(try SignaturePeer.verify(signed, publicKey: P256.Signing.PrivateKey().publicKey).status == 1)
        var der = try SampleSignature(base64Encoded: signed).derEncoded()
        der[der.count / 3] ^= 0x01
        #expect(try SignaturePeer.verify(Data(der).base64EncodedString(), publicKey: key.publicKey).status != 0)
    }
}

/// The Python peer: where it is and how to run it.
enum SignaturePeer {
    static let script = TestData.repositoryRoot.appendingPathComponent("scripts/sample-signature-peer.py")

    static func sign(_ content: SampleSignatureContent, key: P256.Signing.PrivateKey, digest: String = "sha256") throws -> String {
        try withFile(key.pemRepresentation) { path in
            var arguments = ["sign", "--key", path, "--type", content.typeIdentifier, "--value", "\(content.value)", "--unit", content.unit,
                             "--start", "\(content.startMilliseconds)", "--end", "\(content.endMilliseconds)", "--digest", digest]
            if let sync = content.syncIdentifier { arguments += ["--sync", sync] }
            let (status, output) = try run(arguments)
            #expect(status == 0)
            return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static func verify(_ signature: String, publicKey: P256.Signing.PublicKey) throws -> (status: Int32, output: [UInt8]) {
        try withFile(publicKey.pemRepresentation) { path in try run(["verify", "--public", path, signature]) }
    }

    private static func withFile<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("signature-peer-\(UUID().uuidString).pem")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: [UInt8]) {
        try PythonPeer.run(script, arguments)
    }
}
