import CommonSupport
import ExactJSON
import Testing
@testable import FhirBlocks
import TestSupport

/// Random and mutated inputs to every parser never crash; failures are typed errors (the
/// parsers use typed throws, so the error type is checked by the compiler; these tests check
/// that nothing traps and that accepted mutations still behave).
@Suite struct FuzzTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_.|{}[]\":, \n\u{7F}".utf8)

    static func mutate(_ original: [UInt8], round: Int, random: inout SplitMix64) -> [UInt8] {
        var bytes = original
        for _ in 0...(round % 5) {
            guard !bytes.isEmpty else { bytes.append(0x41); continue }
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: bytes[position] = alphabet.randomElement(using: &random) ?? 0x41
            case 1: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 2: bytes.remove(at: position)
            case 3: bytes.insert(alphabet.randomElement(using: &random) ?? 0x41, at: position)
            default: bytes = Array(bytes[..<position])
            }
        }
        return bytes
    }

    static func randomBytes(_ random: inout SplitMix64) -> [UInt8] {
        (0..<Int.random(in: 0...200, using: &random)).map { _ in
            Bool.random(using: &random) ? (alphabet.randomElement(using: &random) ?? 0) : UInt8.random(in: 0...255, using: &random)
        }
    }

    @Test func envelopeJSON() throws {
        var random = SplitMix64(seed: 100)
        let key = CsiSigningKey.generate()
        var write = AppendixA.writePermissionRequest()
        try RequestSigner.sign(&write, with: key, style: .strict)
        let seeds: [[UInt8]] = [AppendixA.registrationRequest().jsonBytes, write.jsonBytes,
                                DeletePermissionRequest(envelope: write.envelope, permissionedGuidBeingDeleted: AppendixA.grantee).jsonBytes]
        for round in 0..<1500 {
            let input = round % 3 == 0 ? Self.randomBytes(&random) : Self.mutate(seeds[round % seeds.count], round: round, random: &random)
            _ = try? CsiRegistrationRequest(jsonBytes: input)
            _ = try? FetchPublicClaimsRequest(jsonBytes: input)
            _ = try? FetchPermissionsGivenToMeRequest(jsonBytes: input)
            _ = try? DeletePermissionRequest(jsonBytes: input)
            _ = try? PermissionsResponse(jsonBytes: input)
            _ = try? TokenResponse(jsonBytes: input)
            if let parsed = try? WritePermissionRequest(jsonBytes: input) {
                // Whatever parses re-encodes and parses to the same value.
                #expect(try WritePermissionRequest(jsonBytes: parsed.jsonBytes) == parsed)
                if input != write.jsonBytes, let quirks = try? SignedRequestVerifier.verify(parsed, publicKey: key.publicKey, mode: .strict) {
                    // Only changes outside the signed members (timeStamp, member order) may still verify.
                    #expect(quirks.isEmpty && RequestSigner.payload(for: parsed, style: .strict) == RequestSigner.payload(for: write, style: .strict))
                }
                _ = try? GrantRequest(parsed, quirks: [])
            }
        }
    }

    @Test func jwtCompactForm() async throws {
        var random = SplitMix64(seed: 101)
        let seeds = [AppendixA.standardJWS, AppendixA.legacyAssertion].map { Array($0.utf8) }
        let validator = AssertionValidator(policy: AssertionPolicy(audiences: [AppendixA.standardAudience]), mode: .compat)
        for round in 0..<1500 {
            let input = round % 4 == 0 ? Self.randomBytes(&random) : Self.mutate(seeds[round % 2], round: round, random: &random)
            let text = String(decoding: input, as: UTF8.self)
            for mode in ProtocolMode.allCases {
                guard let assertion = try? CompactAssertion(text, mode: mode) else { continue }
                #expect(assertion.header.alg == "ES256")
                _ = try? assertion.verifySignature(with: AppendixA.publicKey, mode: mode)
                _ = try? await validator.validate(assertion, key: AppendixA.publicKey, registeredDeviceId: nil, purpose: .authorizationGrant,
                                                   now: at(10), store: InMemoryNonceStore())
            }
        }
    }

    @Test func checkpointText() throws {
        var random = SplitMix64(seed: 102)
        let key = CsiSigningKey.generate()
        let signed = try SignedCheckpoint.sign(CheckpointTests.checkpoint, keyName: "log", key: key)
        let seed = Array(signed.text.utf8)
        for round in 0..<1500 {
            let input = round % 4 == 0 ? Self.randomBytes(&random) : Self.mutate(seed, round: round, random: &random)
            guard let parsed = try? SignedCheckpoint(text: String(decoding: input, as: UTF8.self)) else { continue }
            if (try? parsed.verify(keyName: "log", publicKey: key.publicKey)) != nil {
                #expect(parsed.checkpoint == signed.checkpoint)
            }
        }
    }

    @Test func keyEncodings() {
        var random = SplitMix64(seed: 103)
        let seeds = [Array(AppendixA.publicKeyBase64.utf8), Array(AppendixA.publicKey.pem.utf8), JSONWriter.serialize(AppendixA.publicKey.jwk(kid: "k"))]
        for round in 0..<1500 {
            let input = round % 4 == 0 ? Self.randomBytes(&random) : Self.mutate(seeds[round % 3], round: round, random: &random)
            let text = String(decoding: input, as: UTF8.self)
            for mode in ProtocolMode.allCases {
                if let key = try? CsiPublicKey.parseWire(text, mode: mode) { #expect(key.value.spkiDER.count == 91) }
            }
            _ = try? CsiPublicKey(pem: text)
            _ = try? CsiPublicKey(jwkText: text)
            _ = try? CsiPublicKey(spkiDER: input)
            _ = try? CsiSigningKey(pem: text)
        }
    }

    @Test func formsScopesHeadersEntriesTimes() {
        var random = SplitMix64(seed: 104)
        let form = Array("grant_type=authorization_code&assertion_type=urn%3Aietf&assertion=ab+c/d%3D%3D&scope=patient%2FPatient.read".utf8)
        let entry = AuditEntryTests.entry.canonicalBytes
        for round in 0..<1500 {
            let mutatedForm = Self.mutate(form, round: round, random: &random)
            for mode in ProtocolMode.allCases {
                _ = try? FormBody.parse(mutatedForm, mode: mode, literalPlusFields: ["assertion"])
                _ = try? VacaAuthRequest.parse(mutatedForm, mode: mode)
                _ = try? VacaAccessRequest.parse(mutatedForm, mode: mode)
                _ = BearerCredential.token(fromAuthorization: String(decoding: mutatedForm, as: UTF8.self), mode: mode)
            }
            let scopeText = String(decoding: Self.mutate(Array("patient/Observation.rs conf/V sens/ETH user/*.read".utf8), round: round, random: &random),
                                   as: UTF8.self)
            let granted = ScopeRequest(scopeText).grant(held: [.owner])
            #expect(granted.grants.allSatisfy { $0.isSubset(of: .owner) })
            let mutatedEntry = Self.mutate(entry, round: round, random: &random)
            if let parsed = try? AuditEntry(canonicalBytes: mutatedEntry) { #expect(parsed.canonicalBytes == mutatedEntry) }
            let time = String(decoding: Self.mutate(Array(AppendixA.dateTime.utf8), round: round, random: &random), as: UTF8.self)
            if let stamp = Timestamp(wireText: time) { #expect(stamp.wireText == time) }
            _ = try? Base64URL.decode(utf8: Self.randomBytes(&random), alphabet: .either, padding: .optional)
            _ = CsiGuid(time)
        }
    }
}
