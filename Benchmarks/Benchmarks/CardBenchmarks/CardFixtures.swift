import Crypto
import Foundation
import QRCode
import SmartHealthCards

/// The card every verification benchmark uses, with what both sides need: the verifier
/// (StaticKeyResolver over the issuer's JWKS and CRL, `now` fixed) and, for the ceiling, the
/// same signature, signing input and public key as swift-crypto values.
struct VerifyFixture: Sendable {
    /// The compact JWS.
    let jws: String
    let verifier: SHCVerifier
    /// `b64(header).b64(payload)`: the bytes the ES256 signature covers.
    let signingInput: [UInt8]
    let signature: P256.Signing.ECDSASignature
    let publicKey: P256.Signing.PublicKey
    /// The JWS payload as signed: raw DEFLATE of the claims (for the floor's inflate).
    let compressedPayload: [UInt8]
    /// The size of the inflated claims, in bytes.
    let payloadSize: Int
    /// Where the card came from, printed once by the setup.
    let origin: String
}

/// What the issuing benchmarks use.
struct IssueFixture: Sendable {
    let issuer: SHCIssuer
    /// The FHIR Bundle JSON as read from the file (minimized by every issue).
    let bundle: [UInt8]
    let nbf: Date
    /// For the ceiling: a message as long as an issued card's signing input.
    let message: [UInt8]
    let privateKey: P256.Signing.PrivateKey
}

/// 1,000 separate copies of the card (separate string storage, so no two tasks share a
/// reference count), with the ceiling's per-card inputs likewise separate.
struct BatchFixture: Sendable {
    let verifier: SHCVerifier
    let cards: [String]
    let signingInputs: [[UInt8]]
    let signatures: [P256.Signing.ECDSASignature]
    let publicKey: P256.Signing.PublicKey
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

enum CardFixtures {
    static let specIssuer = "https://spec.smarthealth.cards/examples/issuer"
    /// 2025-01-01T00:00:00Z: the verifiers' `now` and the issued cards' `nbf`.
    static let now = Date(timeIntervalSince1970: 1_735_689_600)
    static let batchSize = 1_000

    /// `$OPENHEALTHKIT_SHARED`, else a `shared` folder beside the repository (or beside any
    /// folder above this file), as the test suites find it; nil when there is none.
    static let sharedRoot: URL? = {
        let fileManager = FileManager.default
        func hasVectors(_ url: URL) -> Bool {
            fileManager.fileExists(atPath: url.appendingPathComponent("vectors/shc/spec-examples/example-00-d-jws.txt").path)
        }
        if let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_SHARED"], !path.isEmpty {
            let url = URL(fileURLWithPath: path)
            return hasVectors(url) ? url : nil
        }
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            folder = folder.deletingLastPathComponent()
            let shared = folder.appendingPathComponent("shared")
            if hasVectors(shared) { return shared }
        }
        return nil
    }()

    static func bytes(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    /// The covid-vaccines bundle from the shared vectors when present, else `SyntheticBundle` (made-up
    /// data of the same shape: a patient and three immunizations).
    static func covidVaccinesBundle() throws -> [UInt8] {
        if let sharedRoot {
            return try bytes(sharedRoot.appendingPathComponent("fhir/examples/smart-health-cards/covid-vaccines-bundle.json"))
        }
        return Array(SyntheticBundle.covidVaccines.utf8)
    }

    /// The official example 00 card with the example issuer's JWKS and CRL; when the shared
    /// vectors are absent, a similar card (`SyntheticBundle`, a `rid`, a key with `crlVersion` 1
    /// and an empty CRL, so the same steps run) issued with a fresh key.
    static func verifyFixture() async throws -> VerifyFixture {
        let jws: String
        let resolver: StaticKeyResolver
        let keySet: SHCJWKSet
        let origin: String
        if let sharedRoot {
            let examples = sharedRoot.appendingPathComponent("vectors/shc/spec-examples")
            jws = String(decoding: try bytes(examples.appendingPathComponent("example-00-d-jws.txt")), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            keySet = try SHCJWKSet(jsonBytes: try bytes(examples.appendingPathComponent("issuer/.well-known/jwks.json")))
            let crlFolder = examples.appendingPathComponent("issuer/.well-known/crl")
            let lists = try FileManager.default.contentsOfDirectory(atPath: crlFolder.path).sorted()
                .filter { $0.hasSuffix(".json") }
                .map { name in try SHCRevocationList(jsonBytes: try bytes(crlFolder.appendingPathComponent(name))) }
            resolver = StaticKeyResolver([specIssuer: keySet], revocationLists: [specIssuer: lists])
            origin = "spec example 00 (\(examples.path)/example-00-d-jws.txt), \(lists.count) CRL(s)"
        } else {
            let issuerURL = "https://issuer.example.org"
            let key = SHCIssuerKey(privateKey: P256.Signing.PrivateKey(), crlVersion: 1)
            jws = try SHCIssuer(key: key, issuer: issuerURL)
                .issue(bundle: try covidVaccinesBundle(), nbf: Date(timeIntervalSince1970: 1_687_450_764.656), rid: "MKyCxh7p6uQ")
            keySet = try SHCJWKSet(jsonBytes: key.publicJWKS)
            resolver = StaticKeyResolver([issuerURL: keySet], revocationLists: [issuerURL: [SHCRevocationList(kid: key.kid)]])
            origin = "shared vectors absent: a card issued from SyntheticBundle with a fresh key"
        }
        let verifier = SHCVerifier(resolver: resolver, now: now)

        // Checked once, before any timing: the card is valid end to end.
        let report = await verifier.verify(jws)
        guard report.isValid, report.signatureValid, !report.revoked else {
            throw FixtureError(description: "the benchmark card does not verify: \(report.findings)")
        }

        // The ceiling's inputs, taken apart here (not timed).
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let headerBytes = base64URLDecode(segments[0]), let signatureBytes = base64URLDecode(segments[2]),
              let compressedPayload = base64URLDecode(segments[1]) else {
            throw FixtureError(description: "the benchmark card is not a compact JWS")
        }
        guard let kid = headerKid(headerBytes), let jwk = keySet.keys.first(where: { $0.kid == kid }),
              let x = jwk.x.flatMap(base64URLDecode), let y = jwk.y.flatMap(base64URLDecode) else {
            throw FixtureError(description: "no key for the card's kid")
        }
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        let signingInput = Array(segments[0].utf8) + [UInt8(ascii: ".")] + Array(segments[1].utf8)
        guard publicKey.isValidSignature(signature, for: signingInput) else {
            throw FixtureError(description: "the ceiling's raw P-256 verification fails")
        }
        guard let payloadSize = RawInflateFloor.inflatedSize(compressedPayload), payloadSize == report.payloadJSON?.count else {
            throw FixtureError(description: "the floor's raw inflate does not give the verifier's payload")
        }
        return VerifyFixture(jws: jws, verifier: verifier, signingInput: signingInput, signature: signature,
                             publicKey: publicKey, compressedPayload: compressedPayload, payloadSize: payloadSize, origin: origin)
    }

    static func batchFixture() async throws -> BatchFixture {
        let card = try await verifyFixture()
        let threads = await CoreExecutor.shared.threadNamesOfChildTasks(CoreExecutor.shared.threadCount)
        print("batch: \(CoreExecutor.shared.threadCount) child tasks ran on \(threads.sorted())")
        let jwsBytes = Array(card.jws.utf8)
        return BatchFixture(
            verifier: card.verifier,
            cards: (0..<batchSize).map { _ in String(decoding: jwsBytes, as: UTF8.self) },
            signingInputs: (0..<batchSize).map { _ in card.signingInput.map { $0 } },
            signatures: (0..<batchSize).map { _ in try! P256.Signing.ECDSASignature(rawRepresentation: card.signature.rawRepresentation) },
            publicKey: card.publicKey)
    }

    static func issueFixture() throws -> IssueFixture {
        let key = SHCIssuerKey.generate()
        let issuer = try SHCIssuer(key: key, issuer: "https://issuer.example.org")
        let bundle = try covidVaccinesBundle()
        // One full issue, checked once: it fits a single QR code.
        let jws = try issuer.issue(bundle: bundle, nbf: now)
        let qr = try QRCode.smartHealthCard(numeric: try SHCNumeric.encode(jws))
        guard qr.version <= 22, let lastDot = jws.utf8.lastIndex(of: UInt8(ascii: ".")) else {
            throw FixtureError(description: "the issued card does not fit one QR code")
        }
        let signingInputLength = jws.utf8.distance(from: jws.utf8.startIndex, to: lastDot)
        var generator = SystemRandomNumberGenerator()
        let message = (0..<signingInputLength).map { _ in UInt8.random(in: 0x2D...0x7A, using: &generator) }
        return IssueFixture(issuer: issuer, bundle: bundle, nbf: now, message: message, privateKey: key.privateKey)
    }

    /// Issues one card as a user would and draws its QR code.
    @inline(never)
    static func issueCard(_ fixture: IssueFixture) throws -> QRCode {
        let jws = try fixture.issuer.issue(bundle: fixture.bundle, nbf: fixture.nbf)
        return try QRCode.smartHealthCard(numeric: try SHCNumeric.encode(jws))
    }

    static func base64URLDecode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var base64 = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    private static func headerKid(_ header: [UInt8]) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(header)) as? [String: Any])?["kid"] as? String
    }
}

/// Process CPU time (user + system), for the batch benchmarks' "cores busy" figure.
enum ProcessCPU {
    static func now() -> Duration {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func duration(_ time: timeval) -> Duration {
            .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec))
        }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
