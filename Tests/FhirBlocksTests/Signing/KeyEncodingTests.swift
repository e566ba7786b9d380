import CommonSupport
import ExactJSON
import Testing
@testable import FhirBlocks

@Suite struct KeyEncodingTests {
    @Test func spkiPemJwkRoundTrip() throws {
        let key = CsiSigningKey.generate()
        let publicKey = key.publicKey
        #expect(try CsiPublicKey(spkiDER: publicKey.spkiDER) == publicKey)
        #expect(try CsiPublicKey(pem: publicKey.pem) == publicKey)
        #expect(try CsiPublicKey(jwk: publicKey.jwk(kid: "k")) == publicKey)
        #expect(try CsiPublicKey(jwkText: JSONWriter.string(publicKey.jwk())) == publicKey)
        #expect(try CsiSigningKey(pem: key.pem).publicKey == publicKey)
        #expect(try CsiSigningKey(rawScalar: key.rawScalar).publicKey == publicKey)
    }

    @Test func x963IsCompatOnly() throws {
        let key = AppendixA.publicKey
        let text = Base64URL.encodeStandard(key.x963)
        #expect(throws: KeyEncodingError.x963NotAllowed) { try CsiPublicKey.parseWire(text, mode: .strict) }
        let accepted = try CsiPublicKey.parseWire(text, mode: .compat)
        #expect(accepted.value == key && accepted.quirks == [.x963PublicKey])
    }

    @Test func badKeysAreTypedErrors() {
        #expect(throws: KeyEncodingError.self) { try CsiPublicKey.parseWire("not base64!", mode: .compat) }
        #expect(throws: KeyEncodingError.notP256SubjectPublicKeyInfo) { try CsiPublicKey(spkiDER: [UInt8](repeating: 0, count: 91)) }
        #expect(throws: KeyEncodingError.notPEM) { try CsiPublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----") }
        #expect(throws: KeyEncodingError.jwkUnsupportedKeyType) { try CsiPublicKey(jwkText: #"{"kty":"RSA","crv":"P-256","x":"","y":""}"#) }
        #expect(throws: KeyEncodingError.jwkMissingMember("x")) { try CsiPublicKey(jwkText: #"{"kty":"EC","crv":"P-256"}"#) }
        #expect(throws: KeyEncodingError.jwkHasPrivateMember) {
            var object = AppendixA.publicKey.jwk().objectValue ?? JSONObject()
            object.append("d", "AAAA")
            _ = try CsiPublicKey(jwk: .object(object))
        }
        #expect(throws: KeyEncodingError.jwkInvalidCoordinates) { try CsiPublicKey(jwkText: #"{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}"#) }
        #expect(throws: KeyEncodingError.invalidPrivateKey) { try CsiSigningKey(rawScalar: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: KeyEncodingError.jwkNotAnObject) { try CsiPublicKey(jwkText: "[1]") }
    }

    @Test func thumbprintMatchesRFC7638Shape() {
        let key = AppendixA.publicKey
        #expect(key.thumbprint.utf8.count == 43)
        #expect(key.thumbprint != CsiSigningKey.generate().publicKey.thumbprint)
    }

    @Test func rawAndDERSignaturesVerify() throws {
        let key = AppendixA.signingKey
        let message = Array("hello".utf8)
        let der = try key.signature(for: message, format: .der)
        let raw = try key.signature(for: message, format: .raw)
        #expect(raw.count == 64)
        #expect(key.publicKey.isValidSignature(der, format: .der, for: message))
        #expect(key.publicKey.isValidSignature(raw, format: .raw, for: message))
        #expect(!key.publicKey.isValidSignature(der, format: .raw, for: message))
        #expect(!key.publicKey.isValidSignature(raw, format: .der, for: message))
        #expect(!key.publicKey.isValidSignature(raw, format: .raw, for: Array("hellp".utf8)))
    }
}

@Suite struct Base64DecodingErrorTests {
    @Test("A key that is not base64 names the problem and where")
    func notBase64() {
        #expect(throws: KeyEncodingError.notBase64(.invalidPadding(offset: 5))) { try CsiPublicKey.parseWire("QUJDR===", mode: .strict) }
        #expect(throws: KeyEncodingError.notBase64(.missingPadding)) { try CsiPublicKey.parseWire("QQ", mode: .strict) }
        #expect(throws: KeyEncodingError.notBase64(.invalidCharacter(offset: 1))) { try CsiPublicKey.parseWire("Q-==", mode: .strict) }
    }
}
