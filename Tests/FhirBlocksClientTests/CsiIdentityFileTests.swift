import ExactJSON
import FhirBlocks
@testable import FhirBlocksClient
import Foundation
import Testing

@Suite("CsiIdentity files")
struct CsiIdentityFileTests {
    /// A fresh folder for one test.
    private func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fhirblocks-identity-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    private func identity() -> CsiIdentity {
        var generator = SystemRandomNumberGenerator()
        return CsiIdentity(csiGuid: CsiGuid.random(using: &generator), key: .generate(), deviceId: CsiIdentity.newDeviceId(),
                           applicationClass: CsiIdentity.walletApplicationClass)
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func savedWithMode0600AndLoadedBack() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/wallet.json"
        let original = identity()
        try original.save(to: path)
        #expect(try mode(path) == 0o600)
        let loaded = try CsiIdentity.load(from: path)
        #expect(loaded.csiGuid == original.csiGuid)
        #expect(loaded.deviceId == original.deviceId)
        #expect(loaded.applicationClass == original.applicationClass)
        #expect(loaded.key.rawScalar == original.key.rawScalar)
        #expect(loaded.isWallet)
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["wallet.json"])
    }

    @Test func existingFileIsNotOverwrittenUnlessAsked() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/app.json"
        let first = identity()
        try first.save(to: path)
        #expect(throws: CsiIdentityError.alreadyExists(path: path)) { try identity().save(to: path) }
        #expect(try CsiIdentity.load(from: path).csiGuid == first.csiGuid)
        let second = identity()
        try second.save(to: path, overwrite: true)
        #expect(try mode(path) == 0o600)
        #expect(try CsiIdentity.load(from: path).csiGuid == second.csiGuid)
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o602])
    func groupOrWorldAccessibleFileIsRefused(permissions: Int) throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/wallet.json"
        try identity().save(to: path)
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        #expect(throws: CsiIdentityError.insecurePermissions(path: path, mode: UInt32(permissions))) { try CsiIdentity.load(from: path) }
        let message = CsiIdentityError.insecurePermissions(path: path, mode: UInt32(permissions)).description
        #expect(message.contains("chmod 600"))
        #expect(!message.contains("PRIVATE KEY"))
        // Narrower than 0600 is fine.
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: path)
        _ = try CsiIdentity.load(from: path)
    }

    @Test func symbolicLinkAndFolderAreRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/wallet.json"
        try identity().save(to: path)
        let link = dir + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: CsiIdentityError.notARegularFile(path: link)) { try CsiIdentity.load(from: link) }
        #expect(throws: CsiIdentityError.notARegularFile(path: dir)) { try CsiIdentity.load(from: dir) }
    }

    @Test func missingAndMalformedFilesAreRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: CsiIdentityError.self) { try CsiIdentity.load(from: dir + "/absent.json") }
        let path = dir + "/bad.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(#"{"format":"something-else"}"#.utf8),
                                               attributes: [.posixPermissions: 0o600]))
        #expect {
            try CsiIdentity.load(from: path)
        } throws: { error in
            guard case .malformed = error as? CsiIdentityError else { return false }
            return true
        }
        // A file whose key does not parse.
        var json = identity().fileJSON.objectValue ?? .init()
        json["privateKey"] = .string("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        #expect(throws: CsiIdentityError.malformed(path: "x", reason: "\"privateKey\" is not a P-256 PEM private key")) {
            try CsiIdentity(fileBytes: Array(JSONWriter.string(.object(json)).utf8), path: "x")
        }
    }
}
