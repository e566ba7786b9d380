import Foundation
import Testing
@testable import SmartHealthCards

/// The VCI directory and its signed snapshot: a corpus of 961 real production keys and CRLs.
@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct DirectoryTests {
    static func snapshot() throws -> VCISnapshot {
        try VCISnapshot.load(contentsOf: Fixtures.vciDirectory.appendingPathComponent("logs/vci_snapshot.json"))
    }

    @Test func issuerList() throws {
        let directory = try VCIDirectory.load(contentsOf: Fixtures.vciDirectory.appendingPathComponent("vci-issuers.json"))
        #expect(directory.issuers.count == 637)
        let california = try #require(directory.issuer(for: "https://myvaccinerecord.cdph.ca.gov/creds"))
        #expect(california.name == "State of California")
        // Matching is exact: a trailing slash is another issuer.
        #expect(directory.issuer(for: "https://myvaccinerecord.cdph.ca.gov/creds/") == nil)
        // canonical_iss groups aliases.
        let aliased = try #require(directory.issuers.first { $0.canonicalIssuer != nil })
        let group = directory.aliases(of: aliased.iss)
        #expect(group.first?.iss == aliased.iss)
        #expect(group.contains { $0.iss == aliased.canonicalIssuer } || group.count >= 1)
        let decision = SHCTrustPolicy.directory(directory).evaluate(issuer: california.iss)
        #expect(decision == .init(trusted: true, name: "State of California"))
        // The upstream example file.
        let example = try VCIDirectory(jsonBytes: Fixtures.bytes(Fixtures.vciDirectory.appendingPathComponent("example-issuer.json")))
        #expect(example.issuers.map(\.iss) == ["https://simple.example.com", "https://example.com/ComplexIssuerOld/SHC"])
        #expect(throws: VCIDirectoryError.unexpectedShape("participating_issuers")) { try VCIDirectory(jsonBytes: Array("{}".utf8)) }
    }

    @Test func snapshotKeysAllPassTheKeyRules() async throws {
        let snapshot = try Self.snapshot()
        #expect(snapshot.directory.issuers.count == 651)
        var keyCount = 0, withCRLVersion = 0, withX5c = 0, shortCoordinates = 0
        for issuer in snapshot.directory.issuers {
            let keys = try #require(try await snapshot.keySet(issuer: issuer.iss))
            for key in keys.keys {
                keyCount += 1
                #expect(key.kid == key.thumbprint, "\(issuer.iss)")
                #expect(key.isValidSigningKey, "\(issuer.iss) \(key.kid ?? "")")
                #expect(key.problems.allSatisfy { $0.severity == .warning }, "\(issuer.iss): \(key.problems)")
                if key.problems.contains(where: { $0.code == .keyCoordinateLength }) { shortCoordinates += 1 }
                if key.hasCRLVersion { withCRLVersion += 1 }
                if key.x5c != nil { withX5c += 1 }
            }
        }
        #expect(keyCount == 961)
        #expect(withX5c == 11)
        #expect(withCRLVersion > 0)
        #expect(shortCoordinates == 2)   // real issuers that drop a leading zero byte of x
    }

    @Test func snapshotCRLQuirks() async throws {
        let snapshot = try Self.snapshot()
        // Northwest Territories: crlVersion and ctr are strings, rids empty.
        let nwt = "https://www.hss.gov.nt.ca/covax"
        let nwtKey = try #require(try await snapshot.keySet(issuer: nwt)?.keys.first { $0.hasCRLVersion })
        #expect(nwtKey.crlVersionIsString)
        #expect(nwtKey.crlVersion == 1)
        let nwtList = try #require(try await snapshot.revocationList(issuer: nwt, kid: nwtKey.kid ?? ""))
        #expect(nwtList.ctrWasString)
        #expect(Set(nwtList.problems.map(\.code)) == [.crlLenient, .crlEmpty])
        // Québec: timestamped rids; Curative: 555 rids of 22 characters.
        let quebec = "https://covid19.quebec.ca/PreuveVaccinaleApi/issuer"
        let quebecKeys = try #require(try await snapshot.keySet(issuer: quebec))
        var quebecRids = 0
        for key in quebecKeys.keys where key.hasCRLVersion {
            let list = try #require(try await snapshot.revocationList(issuer: quebec, kid: key.kid ?? ""))
            #expect(list.ctr == key.crlVersion)
            #expect(list.entries.allSatisfy { $0.timestamp != nil })
            quebecRids += list.entries.count
        }
        #expect(quebecRids == 771 + 17)
        let curative = "https://labtools.curativeinc.com/api"
        let curativeKey = try #require(try await snapshot.keySet(issuer: curative)?.keys.first)
        let curativeList = try #require(try await snapshot.revocationList(issuer: curative, kid: curativeKey.kid ?? ""))
        #expect(curativeList.entries.count == 555)
        #expect(curativeList.entries.allSatisfy { $0.rid.utf8.count == 22 && $0.timestamp == nil })
        #expect(curativeList.problems.isEmpty)
        let first = try #require(curativeList.entries.first)
        #expect(curativeList.revokingEntry(rid: first.rid, nbf: 1_700_000_000) != nil)
    }

    @Test func snapshotSignature() throws {
        let snapshot = try Fixtures.bytes(Fixtures.vciDirectory.appendingPathComponent("logs/vci_snapshot.json"))
        let signature = try Fixtures.bytes(Fixtures.vciDirectory.appendingPathComponent("logs/vci_snapshot.sig"))
        let certificate = try Fixtures.bytes(Fixtures.vciDirectory.appendingPathComponent("vci_snapshot.crt"))
        #expect(VCISnapshot.isValidSignature(snapshot: snapshot, signature: signature, certificate: certificate))
        var tampered = snapshot
        tampered[100] ^= 1
        #expect(!VCISnapshot.isValidSignature(snapshot: tampered, signature: signature, certificate: certificate))
        #expect(!VCISnapshot.isValidSignature(snapshot: snapshot, signature: Array(signature.dropLast()), certificate: certificate))
    }

    @Test func snapshotAsResolverBehindTheSpecFolder() async throws {
        let resolver = CompositeKeyResolver([
            try Self.snapshot(),
            FolderKeyResolver([Fixtures.specIssuer: Fixtures.specExamples.appendingPathComponent("issuer")]),
        ])
        let verifier = SHCVerifier(resolver: resolver, trust: .directory(try Self.snapshot().directory), now: SpecExampleTests.today)
        let report = await verifier.verify(try Fixtures.text(Fixtures.example(0, "d-jws.txt")))
        #expect(report.signatureValid)
        #expect(report.issuerTrusted == false)   // the spec's example issuer is not in the directory
        #expect(report.isValid)
        #expect(!report.isAccepted)
    }
}
