import CommonSupport
import ExactJSON
import Foundation
import Testing
@testable import SmartHealthCards

/// The four official examples (spec 1.4.0) and the legacy 1.3.0 set, in every input form,
/// verified offline against the issuer's `.well-known` folder.
@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct SpecExampleTests {
    /// 2026-11-20: after example 03's exp (2024-06-21) and after example 01's certificate expired.
    static let today = Date(timeIntervalSince1970: 1_795_132_800)
    /// 2023-06-23, the day after the 1.4.0 examples were generated (before example 03 expired).
    static let generationDay = Date(timeIntervalSince1970: 1_687_500_000)
    /// 2023-02-23, the day after the legacy examples were generated.
    static let legacyGenerationDay = Date(timeIntervalSince1970: 1_677_150_000)

    static func verifier(legacy: Bool = false, now: Date = today, trust: SHCTrustPolicy? = nil) -> SHCVerifier {
        let folder = legacy ? Fixtures.legacyExamples.appendingPathComponent("issuer") : Fixtures.specExamples.appendingPathComponent("issuer")
        return SHCVerifier(resolver: FolderKeyResolver([Fixtures.specIssuer: folder]), trust: trust, now: now)
    }

    static func codes(_ findings: [SHCFinding]) -> Set<SHCFindingCode> { Set(findings.map(\.code)) }

    @Test func example00IsValidInEveryForm() async throws {
        let verifier = Self.verifier()
        let jws = try Fixtures.text(Fixtures.example(0, "d-jws.txt"))
        for file in ["d-jws.txt", "e-file.smart-health-card", "f-qr-code-numeric-value-0.txt"] {
            let cards = try SHCInput.parse(try Fixtures.bytes(Fixtures.example(0, file)))
            #expect(cards.map(\.jws) == [jws], "\(file)")
            let report = await verifier.verify(cards[0])
            #expect(report.errors.isEmpty, "\(file): \(report.errors)")
            #expect(report.warnings.isEmpty, "\(file): \(report.warnings)")
            #expect(report.signatureValid)
            #expect(report.isValid)
            #expect(report.issuerTrusted == nil)
            #expect(report.claims?.rid == "MKyCxh7p6uQ")
            #expect(report.claims?.nbf == 1687450764.656)
        }
    }

    @Test func example00Summary() async throws {
        let report = await Self.verifier().verify(try Fixtures.text(Fixtures.example(0, "d-jws.txt")))
        let summary = try #require(report.summary)
        #expect(summary.subjectName == "John B. Anyperson")
        #expect(summary.birthDate == SHCPartialDate(year: 1951, month: 1, day: 20))
        #expect(summary.issuer == Fixtures.specIssuer)
        #expect(summary.issuedDate == Date(timeIntervalSince1970: 1687450764.656))
        #expect(summary.expirationDate == nil)
        #expect(summary.itemNames == ["Moderna COVID-19 vaccine", "Moderna COVID-19 vaccine", "Moderna COVID-19 vaccine, bivalent"])
        #expect(summary.relevantDate == SHCPartialDate(year: 2022, month: 9, day: 5).startDate)
        #expect(summary.recordTypes == [SHCCredentialType.healthCard, SHCCredentialType.immunization])
    }

    @Test func example01SignatureValidCertificateExpiredIsAWarning() async throws {
        for file in ["d-jws.txt", "e-file.smart-health-card", "f-qr-code-numeric-value-0.txt"] {
            let card = try #require(try SHCInput.parse(try Fixtures.bytes(Fixtures.example(1, file))).first)
            let report = await Self.verifier().verify(card)
            #expect(report.signatureValid, "\(file)")
            #expect(report.errors.isEmpty, "\(file): \(report.errors)")
            #expect(Self.codes(report.warnings) == [.x5cValidity], "\(file)")
            #expect(report.summary?.itemNames.count == 3)
        }
        // Before the leaf expired (2022-06-01) the same card has no warning... but nbf would be in the future.
        let early = await Self.verifier(now: Date(timeIntervalSince1970: 1_650_000_000)).verify(try Fixtures.text(Fixtures.example(1, "d-jws.txt")))
        #expect(Self.codes(early.warnings) == [.nbfFuture])
    }

    @Test func example02IsThreeChunksInAnyOrderWithNonResourceReferences() async throws {
        let jws = try Fixtures.text(Fixtures.example(2, "d-jws.txt"))
        let lines = try (0..<3).map { try Fixtures.text(Fixtures.example(2, "f-qr-code-numeric-value-\($0).txt")) }
        for order in [[0, 1, 2], [2, 0, 1], [1, 2, 0]] {
            let input = order.map { lines[$0] }.joined(separator: "\n")
            let cards = try SHCInput.parse(Array(input.utf8))
            #expect(cards == [SHCInput.Card(jws: jws, form: .qrNumeric, chunkCount: 3)])
        }
        let card = try #require(try SHCInput.parse(Array(lines.joined(separator: "\n").utf8)).first)
        let report = await Self.verifier().verify(card)
        #expect(report.signatureValid)
        #expect(Self.codes(report.errors) == [.reference])
        #expect(report.errors.count == 55)
        #expect(Self.codes(report.warnings) == [.qrChunked])
        #expect(jws.utf8.count > SHCNumeric.maximumSingleQRLength)
        #expect(report.summary?.recordTypes.contains(SHCCredentialType.laboratory) == true)
        // File and JWS forms: the same findings but for chunking.
        #expect(try SHCInput.cards(from: try Fixtures.bytes(Fixtures.example(2, "e-file.smart-health-card"))) == [jws])
        let direct = await Self.verifier().verify(jws)
        #expect(direct.signatureValid)
        #expect(direct.errors.count == 55)
        #expect(direct.warnings.isEmpty)
    }

    @Test func example03IsRevokedAndExpired() async throws {
        for file in ["d-jws.txt", "e-file.smart-health-card", "f-qr-code-numeric-value-0.txt"] {
            let card = try #require(try SHCInput.parse(try Fixtures.bytes(Fixtures.example(3, file))).first)
            let report = await Self.verifier().verify(card)
            #expect(report.signatureValid)
            #expect(report.revoked)
            #expect(Self.codes(report.errors) == [.revoked, .expExpired])
            #expect(!report.isValid)
        }
        // Before exp, still revoked.
        let report = await Self.verifier(now: Self.generationDay).verify(try Fixtures.text(Fixtures.example(3, "d-jws.txt")))
        #expect(Self.codes(report.errors) == [.revoked])
    }

    @Test(arguments: [0, 1, 2, 3])
    func legacyExamplesVerify(number: Int) async throws {
        let verifier = Self.verifier(legacy: true, now: Self.legacyGenerationDay)
        let jws = try Fixtures.text(Fixtures.example(number, "d-jws.txt", legacy: true))
        #expect(try SHCInput.cards(from: try Fixtures.bytes(Fixtures.example(number, "e-file.smart-health-card", legacy: true))) == [jws])
        let report = await verifier.verify(jws)
        #expect(report.signatureValid)
        switch number {
        case 0:
            #expect(report.isValid, "\(report.errors)")
            #expect(report.warnings.isEmpty)
            #expect(report.claims?.types == [SHCCredentialType.healthCard, SHCCredentialType.immunization, SHCCredentialType.covid19])
            #expect(report.summary?.recordTypes == [SHCCredentialType.healthCard, SHCCredentialType.immunization, SHCCredentialType.covid19])
        case 1:
            #expect(report.isValid, "\(report.errors)")
            #expect(Self.codes(report.warnings) == [.x5cValidity])
        case 2:
            #expect(Self.codes(report.errors) == [.reference])
        default:
            // nbf 1677103227.401 is after the CRL timestamp 1677103227: not revoked by the letter of rule 42.
            #expect(!report.revoked)
            #expect(report.isValid, "\(report.errors)")
        }
    }

    /// Rule 42's edge: `nbf < timestamp` revokes; equal or later does not; fractions are not truncated.
    @Test func revocationTimestampComparisonIsStrictAndFractional() async throws {
        let current = await Self.verifier(now: Self.generationDay).verify(try Fixtures.text(Fixtures.example(3, "d-jws.txt")))
        #expect(current.revoked)   // 1687450764.657 < 1687450765
        let legacy = await Self.verifier(legacy: true, now: Self.legacyGenerationDay)
            .verify(try Fixtures.text(Fixtures.example(3, "d-jws.txt", legacy: true)))
        #expect(!legacy.revoked)   // 1677103227.401 ≥ 1677103227
        #expect(Self.codes(legacy.errors).isEmpty)
        // After exp the legacy card is rejected for expiry, not revocation.
        let later = await Self.verifier(legacy: true).verify(try Fixtures.text(Fixtures.example(3, "d-jws.txt", legacy: true)))
        #expect(Self.codes(later.errors) == [.expExpired])
        let list = SHCRevocationList(kid: "k", entries: [.init(rid: "abc", timestamp: 100), .init(rid: "def")])
        #expect(list.revokingEntry(rid: "abc", nbf: 99.999) != nil)
        #expect(list.revokingEntry(rid: "abc", nbf: 100) == nil)
        #expect(list.revokingEntry(rid: "abc", nbf: 100.001) == nil)
        #expect(list.revokingEntry(rid: "def", nbf: 1e10) != nil)
        #expect(list.revokingEntry(rid: "xyz", nbf: 0) == nil)
    }

    @Test func minifiedPayloadsMatchTheInflatedJWS() throws {
        for number in 0...3 {
            let jws = try CompactJWS(Array(try Fixtures.text(Fixtures.example(number, "d-jws.txt")).utf8))
            let inflated = try RawDeflate.inflate(jws.payload, limit: 1 << 20)
            #expect(inflated == (try Fixtures.bytes(Fixtures.example(number, "c-jws-payload-minified.json"))))
        }
    }

    @Test func numericTextRoundTrips() throws {
        for number in [0, 1, 3] {
            let jws = try Fixtures.text(Fixtures.example(number, "d-jws.txt"))
            let numeric = try Fixtures.text(Fixtures.example(number, "f-qr-code-numeric-value-0.txt"))
            #expect(try SHCNumeric.encode(jws) == numeric)
            #expect(try SHCNumeric.encodeForQR(jws) == [numeric])
            #expect(try SHCNumeric.decode(numeric).jws == jws)
        }
        let jws = try Fixtures.text(Fixtures.example(2, "d-jws.txt"))
        let chunks = try (0..<3).map { try Fixtures.text(Fixtures.example(2, "f-qr-code-numeric-value-\($0).txt")) }
        #expect(try SHCNumeric.legacyChunks(jws) == chunks)
        #expect(try SHCNumeric.encodeForQR(jws, allowLegacyChunking: true) == chunks)
        #expect(throws: SHCIssueError.tooLongForSingleQR(length: 3285, maximum: 1195)) { try SHCNumeric.encodeForQR(jws) }
    }

    @Test func ridsAreTheHMACRecipe() throws {
        let secretJSON = try SHCLimits.default.parseJSON(
            try Fixtures.bytes(Fixtures.specExamples.appendingPathComponent("issuer-private/issuer.hmac.private.json")))
        let secret = try #require(secretJSON["secret"]?.stringValue)
        #expect(SHCRevocation.rid(secret: secret, kid: Fixtures.kid0, subject: "userid-00") == "MKyCxh7p6uQ")
        #expect(SHCRevocation.rid(secret: secret, kid: Fixtures.kid0, subject: "userid-02") == "YjKhdFoxL_g")
        #expect(SHCRevocation.rid(secret: secret, kid: Fixtures.kid0, subject: "userid-03") == "vwAjHdarZuc")
    }

    @Test func trustByDirectoryAndByList() async throws {
        let jws = try Fixtures.text(Fixtures.example(0, "d-jws.txt"))
        let directory = try VCIDirectory.load(contentsOf: Fixtures.vciDirectory.appendingPathComponent("vci-issuers.json"))
        let untrusted = await Self.verifier(trust: .directory(directory)).verify(jws)
        #expect(untrusted.issuerTrusted == false)
        #expect(untrusted.isValid)
        #expect(!untrusted.isAccepted)
        #expect(Self.codes(untrusted.warnings) == [.issuerUntrusted])
        let trusted = await Self.verifier(trust: .anyOf([.directory(directory), .issuers([Fixtures.specIssuer])])).verify(jws)
        #expect(trusted.issuerTrusted == true)
        #expect(trusted.isAccepted)
        #expect(trusted.warnings.isEmpty)
    }
}
