import CommonSupport
import Crypto
import ExactJSON
import Foundation
import Testing
@testable import SmartHealthCards

/// One way to break a card, and exactly what verification must report.
struct Mutation: Sendable, CustomTestStringConvertible {
    enum Keys: Sendable {
        /// The issuer publishes the signing key (as mutated by `jwk`).
        case published
        /// The resolver fails.
        case failing
        /// The key is published, but only under another issuer (rule 33).
        case underAnotherIssuer
        /// The issuer publishes a different key; the signing key belongs to another issuer.
        case anotherIssuersKey
    }

    var name: String
    var header: @Sendable (JSONValue) -> JSONValue = { $0 }
    var payload: @Sendable (JSONValue) -> JSONValue = { $0 }
    var pretty = false
    var rawPayload: [UInt8]?
    var compression: TestCards.Compression = .raw
    var signature: (@Sendable ([UInt8], Data) -> [UInt8])?
    var text: @Sendable (String) -> String = { $0 }
    var jwk: @Sendable (JSONValue) -> JSONValue = { $0 }
    var crl: (@Sendable (String) -> SHCRevocationList?)?
    var keys = Keys.published
    /// Draw signing keys until x starts with a zero byte.
    var leadingZeroX = false
    var limits = SHCLimits.default
    var trust: SHCTrustPolicy?
    var errors: Set<SHCFindingCode> = []
    var warnings: Set<SHCFindingCode> = []
    var signatureValid = true

    var testDescription: String { name }

    static func payload(_ path: [JSONStep], _ value: JSONValue?) -> @Sendable (JSONValue) -> JSONValue {
        let path = path
        return { $0.setting(path, value) }
    }

    static func bundle(_ path: [JSONStep], _ value: JSONValue?) -> @Sendable (JSONValue) -> JSONValue {
        payload(["vc", "credentialSubject", "fhirBundle"] + path, value)
    }

    static func withCRL(_ entries: [SHCRevocationList.Entry], ctr: Int = 1, method: String = "rid",
                        kid: String? = nil) -> @Sendable (String) -> SHCRevocationList? {
        { SHCRevocationList(kid: kid ?? $0, method: method, ctr: ctr, entries: entries) }
    }

    static let crlVersion1: @Sendable (JSONValue) -> JSONValue = { $0.setting(["crlVersion"], .number(integer: 1)) }

    static let all: [Mutation] = [
        Mutation(name: "baseline (valid)"),
        // Rule 13: the JWS text.
        Mutation(name: "trailing newline", text: { $0 + "\n" }, errors: [.jwsTrailingCharacters]),
        Mutation(name: "leading BOM", text: { "\u{FEFF}" + $0 }, errors: [.jwsTrailingCharacters]),
        Mutation(name: "base64 padding", text: { $0.replacingOccurrences(of: ".", with: "==.") }, errors: [.jwsPadding]),
        Mutation(name: "two segments", text: { String($0[..<($0.lastIndex(of: ".") ?? $0.endIndex)]) }, errors: [.jwsFormat], signatureValid: false),
        Mutation(name: "standard base64 character", text: { $0.replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "-", with: "+") + "+" },
                 errors: [.jwsFormat], signatureValid: false),
        Mutation(name: "longer than the limit", limits: SHCLimits(maxJWSLength: 100), errors: [.jwsTooLarge], signatureValid: false),
        // Rule 11: header.
        Mutation(name: "alg HS256", header: { $0.setting(["alg"], .string("HS256")) }, errors: [.headerAlg]),
        Mutation(name: "alg missing", header: { $0.setting(["alg"], nil) }, errors: [.headerAlg]),
        Mutation(name: "zip missing", header: { $0.setting(["zip"], nil) }, errors: [.headerZip]),
        Mutation(name: "zip GZIP", header: { $0.setting(["zip"], .string("GZIP")) }, errors: [.headerZip]),
        Mutation(name: "kid missing", header: { $0.setting(["kid"], nil) }, errors: [.headerKid], signatureValid: false),
        Mutation(name: "crit parameter", header: { $0.setting(["crit"], .array([.string("exp")])) }, errors: [.headerCrit]),
        Mutation(name: "header not JSON", header: { _ in .string("x") }, errors: [.headerInvalid], signatureValid: false),
        // Rule 12: signature format.
        Mutation(name: "DER signature", signature: { _, der in Array(der) }, errors: [.signatureFormat], signatureValid: false),
        Mutation(name: "63-byte signature", signature: { raw, _ in Array(raw.prefix(63)) }, errors: [.signatureFormat], signatureValid: false),
        Mutation(name: "65-byte signature", signature: { raw, _ in raw + [0] }, errors: [.signatureFormat], signatureValid: false),
        Mutation(name: "corrupted signature", signature: { raw, _ in var bytes = raw; bytes[40] ^= 1; return bytes },
                 errors: [.signatureInvalid], signatureValid: false),
        // Rule 14: compression.
        Mutation(name: "zlib-wrapped payload", compression: .zlib, errors: [.payloadZlibWrapped], signatureValid: false),
        Mutation(name: "gzip-wrapped payload", compression: .gzip, errors: [.payloadGzipWrapped], signatureValid: false),
        Mutation(name: "uncompressed payload", compression: .none, errors: [.payloadNotCompressed], signatureValid: false),
        Mutation(name: "zip bomb", compression: .bytes(RawDeflate.deflate([UInt8](repeating: 0x20, count: 2_000_000))),
                 errors: [.payloadTooLarge], signatureValid: false),
        Mutation(name: "truncated DEFLATE", compression: .bytes(Array(RawDeflate.deflate(TestCards.payload().serialized()).dropLast(20))),
                 errors: [.payloadInflate], signatureValid: false),
        Mutation(name: "bytes after the DEFLATE stream", compression: .bytes(RawDeflate.deflate(TestCards.payload().serialized()) + [1, 2, 3]),
                 errors: [.payloadInflate], signatureValid: false),
        Mutation(name: "payload not JSON", rawPayload: Array("not json".utf8), errors: [.payloadJSON], signatureValid: false),
        Mutation(name: "payload a JSON array", rawPayload: Array("[1,2]".utf8), errors: [.payloadJSON], signatureValid: false),
        Mutation(name: "payload with duplicate claim", rawPayload: Array(#"{"iss":"a","iss":"b"}"#.utf8), errors: [.payloadJSON], signatureValid: false),
        Mutation(name: "payload not minified", pretty: true, warnings: [.payloadNotMinified]),
        // Rules 6 and 15.
        Mutation(name: "iss http", payload: payload(["iss"], .string("http://issuer.example.org/shc")), errors: [.issScheme], signatureValid: false),
        Mutation(name: "iss trailing slash", payload: payload(["iss"], .string(TestCards.issuer + "/")), errors: [.issTrailingSlash], signatureValid: false),
        Mutation(name: "iss with query", payload: payload(["iss"], .string(TestCards.issuer + "?a=b")), errors: [.issInvalid], signatureValid: false),
        Mutation(name: "iss without host", payload: payload(["iss"], .string("https:///shc")), errors: [.issInvalid], signatureValid: false),
        Mutation(name: "iss missing", payload: payload(["iss"], nil), errors: [.issMissing], signatureValid: false),
        Mutation(name: "iss a number", payload: payload(["iss"], .number(integer: 1)), errors: [.issMissing], signatureValid: false),
        // Rules 16, 17, 34.
        Mutation(name: "nbf in milliseconds", payload: payload(["nbf"], .number(integer: 1_767_139_200_250)), errors: [.nbfMilliseconds]),
        Mutation(name: "nbf in the future", payload: payload(["nbf"], .number(double: TestCards.now.timeIntervalSince1970 + 3600)), warnings: [.nbfFuture]),
        Mutation(name: "nbf within clock skew", payload: payload(["nbf"], .number(double: TestCards.now.timeIntervalSince1970 + 60))),
        Mutation(name: "nbf integer", payload: payload(["nbf"], .number(integer: 1_767_139_200))),
        Mutation(name: "nbf a string", payload: payload(["nbf"], .string("1767139200")), errors: [.nbfType]),
        Mutation(name: "nbf missing", payload: payload(["nbf"], nil), errors: [.nbfMissing]),
        Mutation(name: "exp in the past", payload: payload(["exp"], .number(double: TestCards.now.timeIntervalSince1970 - 1)), errors: [.expExpired]),
        Mutation(name: "exp in the future", payload: payload(["exp"], .number(double: TestCards.now.timeIntervalSince1970 + 86_400.5))),
        Mutation(name: "exp before nbf", payload: {
            $0.setting(["nbf"], .number(double: TestCards.now.timeIntervalSince1970 + 10_000))
                .setting(["exp"], .number(double: TestCards.now.timeIntervalSince1970 + 5_000))
        }, errors: [.expBeforeNbf], warnings: [.nbfFuture]),
        Mutation(name: "exp a string", payload: payload(["exp"], .string("never")), errors: [.expType]),
        // Rules 18-21, 40.
        Mutation(name: "vc missing", payload: payload(["vc"], nil), errors: [.vcMissing]),
        Mutation(name: "no #health-card type", payload: payload(["vc", "type"], .array([.string(SHCCredentialType.immunization)])),
                 errors: [.vcTypeHealthCard]),
        Mutation(name: "unknown extra type ignored", payload: payload(["vc", "type"],
                 .array([.string(SHCCredentialType.healthCard), .string("https://example.org#unknown"), .string(SHCCredentialType.covid19)]))),
        Mutation(name: "type missing", payload: payload(["vc", "type"], nil), errors: [.vcTypeMissing]),
        Mutation(name: "type with a number", payload: payload(["vc", "type"], .array([.string(SHCCredentialType.healthCard), .number(integer: 1)])),
                 errors: [.vcTypeMissing]),
        Mutation(name: "VerifiableCredential type", payload: payload(["vc", "type"],
                 .array([.string("VerifiableCredential"), .string(SHCCredentialType.healthCard)])), warnings: [.vcJSONLD]),
        Mutation(name: "@context", payload: payload(["vc", "@context"], .array([.string("https://www.w3.org/2018/credentials/v1")])),
                 warnings: [.vcJSONLD]),
        Mutation(name: "fhirVersion missing", payload: payload(["vc", "credentialSubject", "fhirVersion"], nil), errors: [.fhirVersion]),
        Mutation(name: "fhirVersion not semantic", payload: payload(["vc", "credentialSubject", "fhirVersion"], .string("R4")), errors: [.fhirVersion]),
        Mutation(name: "rid too long", payload: payload(["vc", "rid"], .string(String(repeating: "a", count: 25))), errors: [.ridFormat]),
        Mutation(name: "rid with a dot", payload: payload(["vc", "rid"], .string("abc.def")), errors: [.ridFormat]),
        Mutation(name: "rid of 24 characters", payload: payload(["vc", "rid"], .string(String(repeating: "a", count: 24)))),
        Mutation(name: "unexpected top-level claim", payload: payload(["sub"], .string("x")), warnings: [.claimsUnexpected]),
        Mutation(name: "unexpected vc member", payload: payload(["vc", "credentialStatus"], .string("x")), warnings: [.claimsUnexpected]),
        // Rule 20.
        Mutation(name: "fhirBundle missing", payload: payload(["vc", "credentialSubject", "fhirBundle"], nil), errors: [.bundleMissing]),
        Mutation(name: "credentialSubject missing", payload: payload(["vc", "credentialSubject"], nil), errors: [.bundleMissing]),
        Mutation(name: "not a Bundle", payload: bundle(["resourceType"], .string("Patient")), errors: [.bundleResourceType]),
        Mutation(name: "Bundle.type missing", payload: bundle(["type"], nil), warnings: [.bundleType]),
        Mutation(name: "Bundle.type document", payload: bundle(["type"], .string("document"))),
        Mutation(name: "entry without resource", payload: bundle(["entry", 1, "resource"], nil), errors: [.bundleEntry]),
        Mutation(name: "entry not an object", payload: bundle(["entry", 2], .string("x")), errors: [.bundleEntry]),
        // Rules 23-27: minimization warnings.
        Mutation(name: "Resource.id", payload: bundle(["entry", 0, "resource", "id"], .string("p1")), warnings: [.minimizationID]),
        Mutation(name: "Resource.meta other than security", payload: bundle(["entry", 1, "resource", "meta", "lastUpdated"], .string("2021-01-01")),
                 warnings: [.minimizationMeta]),
        Mutation(name: "DomainResource.text", payload: bundle(["entry", 0, "resource", "text"],
                 .object(members: [.init("status", .string("generated")), .init("div", .string("<div/>"))])), warnings: [.minimizationText]),
        Mutation(name: "CodeableConcept.text", payload: bundle(["entry", 1, "resource", "vaccineCode", "text"], .string("vaccine")),
                 warnings: [.minimizationCodeableConceptText]),
        Mutation(name: "Coding.display", payload: bundle(["entry", 1, "resource", "vaccineCode", "coding", 0, "display"], .string("Pfizer")),
                 warnings: [.minimizationCodingDisplay]),
        Mutation(name: "Reference.display allowed", payload: bundle(["entry", 1, "resource", "patient", "display"], .string("Test Example"))),
        // Rules 28-29.
        Mutation(name: "fullUrl not resource:N", payload: bundle(["entry", 2, "fullUrl"], .string("urn:uuid:1f3a")), errors: [.fullURL]),
        Mutation(name: "fullUrl missing", payload: bundle(["entry", 2, "fullUrl"], nil), errors: [.fullURL]),
        Mutation(name: "duplicate fullUrl", payload: bundle(["entry", 2, "fullUrl"], .string("resource:1")), errors: [.fullURLDuplicate]),
        Mutation(name: "unresolvable resource:N", payload: bundle(["entry", 1, "resource", "patient", "reference"], .string("resource:9")),
                 errors: [.reference]),
        Mutation(name: "relative reference", payload: bundle(["entry", 1, "resource", "patient", "reference"], .string("Patient/1")),
                 errors: [.reference]),
        Mutation(name: "empty string", payload: bundle(["entry", 1, "resource", "lotNumber"], .string("")), errors: [.emptyElement]),
        Mutation(name: "empty array", payload: bundle(["entry", 1, "resource", "performer"], .array([])), errors: [.emptyElement]),
        Mutation(name: "empty object", payload: bundle(["entry", 1, "resource", "performer", 0, "actor"], .object(members: [])), errors: [.emptyElement]),
        // Rule 30.
        Mutation(name: "Immunization not completed", payload: bundle(["entry", 1, "resource", "status"], .string("not-done")),
                 errors: [.immunizationStatus]),
        Mutation(name: "Immunization without occurrence", payload: bundle(["entry", 1, "resource", "occurrenceDateTime"], nil),
                 errors: [.immunizationOccurrence]),
        Mutation(name: "Immunization with two occurrences", payload: bundle(["entry", 1, "resource", "occurrenceString"], .string("May 2021")),
                 errors: [.immunizationOccurrence]),
        // Rules 2-4, 7, 33: keys.
        Mutation(name: "kid not the thumbprint", jwk: { $0.setting(["kid"], .string("not-the-thumbprint")) }, errors: [.keyKid]),
        Mutation(name: "public key with d", jwk: { $0.setting(["d"], .string("FvOOk6hMixJ2o9zt4PCfan_UW7i4aOEnzj76ZaCI9Og")) },
                 errors: [.keyPrivate]),
        Mutation(name: "use enc", jwk: { $0.setting(["use"], .string("enc")) }, errors: [.keyUse]),
        Mutation(name: "use missing", jwk: { $0.setting(["use"], nil) }, errors: [.keyUse]),
        Mutation(name: "alg ES384", jwk: { $0.setting(["alg"], .string("ES384")) }, errors: [.keyAlg]),
        Mutation(name: "crv P-384", jwk: {
            let changed = $0.setting(["crv"], .string("P-384"))
            return changed.setting(["kid"], .string(TestCards.thumbprint(changed)))
        }, errors: [.keyCurve], signatureValid: false),
        Mutation(name: "kty OKP", jwk: {
            let changed = $0.setting(["kty"], .string("OKP"))
            return changed.setting(["kid"], .string(TestCards.thumbprint(changed)))
        }, errors: [.keyType]),
        Mutation(name: "point not on the curve", jwk: {
            let changed = $0.setting(["x"], .string(Base64URL.encode([UInt8](repeating: 1, count: 32))))
            return changed.setting(["kid"], .string(TestCards.thumbprint(changed)))
        }, errors: [.keyCoordinates], signatureValid: false),
        Mutation(name: "coordinate with its leading zero dropped", jwk: {
            // The signing key is drawn so that x starts with a zero byte; publish x without it.
            let x = (try? Base64URL.decode($0["x"]?.stringValue ?? "")) ?? []
            let shortened = $0.setting(["x"], .string(Base64URL.encode(Array(x.dropFirst()))))
            return shortened.setting(["kid"], .string(TestCards.thumbprint(shortened)))
        }, leadingZeroX: true, warnings: [.keyCoordinateLength]),
        Mutation(name: "issuer unknown", keys: .underAnotherIssuer, errors: [.issuerUnknown], signatureValid: false),
        Mutation(name: "kid of another issuer", keys: .anotherIssuersKey, errors: [.keyNotFound], signatureValid: false),
        Mutation(name: "resolver failure", keys: .failing, errors: [.resolverFailed], signatureValid: false),
        Mutation(name: "x5c not base64", jwk: { $0.setting(["x5c"], .array([.string("%%%")])) }, warnings: [.x5cFormat]),
        // Rules 35, 41-43: revocation.
        Mutation(name: "revoked rid without timestamp", jwk: crlVersion1, crl: withCRL([.init(rid: "AbCdEfGhIjK")]), errors: [.revoked]),
        Mutation(name: "revoked rid, nbf before timestamp", jwk: crlVersion1,
                 crl: withCRL([.init(rid: "AbCdEfGhIjK", timestamp: Int64(TestCards.nbf) + 1)]), errors: [.revoked]),
        Mutation(name: "rid listed, nbf after timestamp", jwk: crlVersion1,
                 crl: withCRL([.init(rid: "AbCdEfGhIjK", timestamp: Int64(TestCards.nbf))])),
        Mutation(name: "other rids listed", jwk: crlVersion1, crl: withCRL([.init(rid: "zzzzzzzzzzz"), .init(rid: "yyy", timestamp: 5)])),
        Mutation(name: "CRL ctr differs from crlVersion", jwk: { $0.setting(["crlVersion"], .number(integer: 2)) },
                 crl: withCRL([.init(rid: "zzz")], ctr: 1), errors: [.crlCtr]),
        Mutation(name: "CRL of another kid", jwk: crlVersion1, crl: withCRL([.init(rid: "zzz")], kid: "another"), errors: [.crlKid]),
        Mutation(name: "CRL method unknown", jwk: crlVersion1, crl: withCRL([.init(rid: "zzz")], method: "other"), errors: [.crlMethod]),
        Mutation(name: "legacy hash-fhir CRL listing the bundle", payload: payload(["vc", "rid"], nil), jwk: crlVersion1,
                 crl: withCRL([.init(rid: SHCRevocation.hashFHIRRid(bundle: TestCards.bundle))], method: "hash-fhir"), errors: [.revoked]),
        Mutation(name: "legacy hash-fhir CRL listing other bundles", payload: payload(["vc", "rid"], nil), jwk: crlVersion1,
                 crl: withCRL([.init(rid: "zzzzzzzzzzz")], method: "hash-fhir")),
        Mutation(name: "CRL missing", jwk: crlVersion1, errors: [.crlUnavailable]),
        Mutation(name: "crlVersion as a string", jwk: { $0.setting(["crlVersion"], .string("1")) },
                 crl: withCRL([.init(rid: "zzz")]), warnings: [.crlLenient]),
        Mutation(name: "crlVersion 0", jwk: { $0.setting(["crlVersion"], .number(integer: 0)) }, errors: [.crlVersion]),
        Mutation(name: "empty CRL", jwk: crlVersion1,
                 crl: { kid in try? SHCRevocationList(json: .json(#"{"kid":"\#(kid)","method":"rid","ctr":1,"rids":[]}"#)) },
                 warnings: [.crlEmpty]),
        Mutation(name: "CRL with a duplicate and a bad entry", jwk: crlVersion1,
                 crl: { kid in try? SHCRevocationList(json: .json(#"{"kid":"\#(kid)","method":"rid","ctr":1,"rids":["a1","a1.5","bad.x","c.1.2"]}"#)) },
                 errors: [.crlDuplicate, .crlEntry]),
        Mutation(name: "CRL with a rid longer than 24 characters", jwk: crlVersion1,
                 crl: { kid in try? SHCRevocationList(json: .json(#"{"kid":"\#(kid)","method":"rid","ctr":1,"rids":["abcdefghijklmnopqrstuvwxy"]}"#)) },
                 errors: [.crlEntry]),
        Mutation(name: "CRL with a rid that is not base64url", jwk: crlVersion1,
                 crl: { kid in try? SHCRevocationList(json: .json(#"{"kid":"\#(kid)","method":"rid","ctr":1,"rids":["ab+cd/ef"]}"#)) },
                 errors: [.crlEntry]),
        Mutation(name: "CRL listing a rid twice with different timestamps", jwk: crlVersion1,
                 crl: { kid in try? SHCRevocationList(json: .json(#"{"kid":"\#(kid)","method":"rid","ctr":1,"rids":["zz.5","zz.9"]}"#)) },
                 errors: [.crlDuplicate]),
        Mutation(name: "card without rid, key with CRL", payload: payload(["vc", "rid"], nil), jwk: crlVersion1, crl: withCRL([.init(rid: "zzz")])),
        // Rules 36, 55: trust.
        Mutation(name: "issuer not trusted", trust: .issuers(["https://someone.else"]), warnings: [.issuerUntrusted]),
        Mutation(name: "issuer trusted", trust: .issuers([TestCards.issuer])),
    ]
}

@Suite struct MutationTests {
    @Test(arguments: Mutation.all)
    func mutationIsReportedExactly(_ mutation: Mutation) async throws {
        var key = SHCIssuerKey.generate()
        while mutation.leadingZeroX, key.privateKey.publicKey.rawRepresentation.first != 0 { key = SHCIssuerKey.generate() }
        let jwk = mutation.jwk(TestCards.jwk(key))
        let kid = jwk["kid"]?.stringValue ?? key.kid
        let header = mutation.header(TestCards.header(kid: kid)).serialized()
        let payload = mutation.rawPayload ?? mutation.payload(TestCards.payload()).serialized(pretty: mutation.pretty)
        let jws = mutation.text(try TestCards.sign(key: key, header: header,
                                                   compressed: TestCards.compress(payload, mutation.compression),
                                                   signature: mutation.signature))
        let keySet = SHCJWKSet(keys: [try SHCJWK(json: jwk)])
        let lists = mutation.crl?(kid).map { [$0] } ?? []
        let resolver: any IssuerKeyResolver = switch mutation.keys {
        case .published:
            FixedResolver(issuer: TestCards.issuer, keySet: keySet, revocationList: lists.first)
        case .failing:
            FailingResolver()
        case .underAnotherIssuer:
            StaticKeyResolver(["https://another.example.org": keySet])
        case .anotherIssuersKey:
            StaticKeyResolver([TestCards.issuer: SHCJWKSet(keys: [SHCIssuerKey.generate().publicJWK]),
                               "https://another.example.org": keySet])
        }
        let verifier = SHCVerifier(resolver: resolver, trust: mutation.trust, now: TestCards.now, limits: mutation.limits)
        let report = await verifier.verify(jws)
        #expect(Set(report.errors.map(\.code)) == mutation.errors, "\(report.errors)")
        #expect(Set(report.warnings.map(\.code)) == mutation.warnings, "\(report.warnings)")
        #expect(report.signatureValid == mutation.signatureValid)
        #expect(report.isValid == mutation.errors.isEmpty)
        for finding in report.findings {
            #expect(finding.rule == finding.code.rule)
            #expect(finding.severity == finding.code.severity)
        }
        if mutation.trust != nil {
            #expect(report.issuerTrusted == mutation.warnings.isEmpty)
        } else {
            #expect(report.issuerTrusted == nil)
        }
    }

    /// Every finding code a verifier can produce from a card is produced by some mutation here,
    /// or (x5c validity, SAN and key mismatch, which need the spec's certificate chain, and QR
    /// chunking, which needs input forms) by SpecExampleTests and SpecIssuingTests.
    @Test func everyCodeIsExercised() {
        var covered = Set(Mutation.all.flatMap { $0.errors.union($0.warnings) })
        covered.formUnion([.x5cValidity, .x5cSAN, .x5cKeyMismatch, .qrChunked])
        let missing = Set(SHCFindingCode.allCases).subtracting(covered)
        #expect(missing.isEmpty, "codes without a mutation: \(missing.map(\.rawValue).sorted())")
    }
}
