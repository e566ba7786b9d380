import Foundation
import Testing
@testable import health

/// `issuer-keys.json` beside a store can name only issuers no real issuer can be, from a private
/// file, in folders inside the store's folder.
@Suite("Kept issuer keys beside a store")
struct KeptIssuersTests {
    @Test("Only names reserved for examples and tests, over https")
    func reservedNames() {
        for iss in ["https://demo-issuer.openhealthkit.example", "https://issuer.test/x", "https://localhost:8443",
                    "https://example.org/issuer", "https://a.example.com"] {
            #expect(KeptIssuers.isReservedForExamples(iss), "\(iss)")
        }
        for iss in ["https://spec.smarthealth.cards/examples/issuer", "https://myvaccinerecord.cdph.ca.gov/creds",
                    "http://demo-issuer.openhealthkit.example", "https://example.com.attacker.net", "https://examplexample",
                    "not a url", ""] {
            #expect(!KeptIssuers.isReservedForExamples(iss), "\(iss)")
        }
    }

    @Test("A planted file cannot shadow a real issuer, be writable by others, or point outside the folder")
    func plantedFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kept-issuers-\(UUID().uuidString)")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("kept-outside-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        for name in ["demo", "real"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("link"), withDestinationURL: outside)
        try KeptIssuers.record("https://demo.openhealthkit.example", folder: "demo", in: folder)
        try KeptIssuers.record("https://spec.smarthealth.cards/examples/issuer", folder: "real", in: folder)
        try KeptIssuers.record("https://linked.example", folder: "link", in: folder)
        #expect(KeptIssuers.issuerArguments(in: folder) == ["https://demo.openhealthkit.example=\(folder.appendingPathComponent("demo").path)"])

        let file = folder.appendingPathComponent(KeptIssuers.fileName)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
        #expect(KeptIssuers.issuerArguments(in: folder).isEmpty)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(KeptIssuers.issuerArguments(in: folder).count == 1)
    }
}
