import Foundation
@testable import SmartHealthCards
import Testing

@Suite("Issuer keys from a folder")
struct FolderKeyResolverTests {
    private static func folder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-resolver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".well-known"), withIntermediateDirectories: true)
        return root
    }

    @Test("Keys are parsed once while the file is unchanged, and again when it is replaced or rewritten")
    func followsChanges() async throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let jwks = root.appendingPathComponent(".well-known/jwks.json")
        let first = SHCIssuerKey.generate(), second = SHCIssuerKey.generate(), third = SHCIssuerKey.generate()
        try Data(SHCJWKSet(keys: [first.publicJWK]).serialized()).write(to: jwks)
        let resolver = FolderKeyResolver(["https://issuer.example.org": root])
        let identity = try #require(FileIdentity(path: jwks.path))
        #expect(try await resolver.keySet(issuer: "https://issuer.example.org")?.keys.map(\.kid) == [first.kid])
        #expect(try await resolver.keySet(issuer: "https://issuer.example.org")?.keys.map(\.kid) == [first.kid])
        #expect(FileIdentity(path: jwks.path) == identity)

        // Replaced by rename (a new inode), as SHCWellKnownFolder and editors do.
        try Data(SHCJWKSet(keys: [second.publicJWK]).serialized()).write(to: jwks, options: .atomic)
        #expect(FileIdentity(path: jwks.path) != identity)
        #expect(try await resolver.keySet(issuer: "https://issuer.example.org")?.keys.map(\.kid) == [second.kid])

        // Rewritten in place with two keys (another size).
        let handle = try FileHandle(forWritingTo: jwks)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(SHCJWKSet(keys: [second.publicJWK, third.publicJWK]).serialized()))
        try handle.close()
        #expect(try await resolver.keySet(issuer: "https://issuer.example.org")?.keys.map(\.kid) == [second.kid, third.kid])

        // Removed: an error, not the old keys.
        try FileManager.default.removeItem(at: jwks)
        await #expect(throws: SHCResolverError.self) { _ = try await resolver.keySet(issuer: "https://issuer.example.org") }
        #expect(FileIdentity(path: jwks.path) == nil)
        #expect(try await resolver.revocationList(issuer: "https://issuer.example.org", kid: first.kid) == nil)
    }

    @Test("Without following changes, the keys first read are kept, and the paths are the folder's")
    func keepsFirstRead() async throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let jwks = root.appendingPathComponent(".well-known/jwks.json")
        let first = SHCIssuerKey.generate(), second = SHCIssuerKey.generate()
        // A folder given with a trailing slash names the same files.
        let resolver = FolderKeyResolver(["https://issuer.example.org": URL(fileURLWithPath: root.path + "/")], followsChanges: false)

        // Not there yet: the error names the file, and nothing is kept.
        await #expect(throws: SHCResolverError.unreadable(issuer: "https://issuer.example.org", resource: jwks.path, reason: "file not readable")) {
            _ = try await resolver.keySet(issuer: "https://issuer.example.org")
        }
        try Data(SHCJWKSet(keys: [first.publicJWK]).serialized()).write(to: jwks)
        #expect(try await resolver.keySet(issuer: "https://issuer.example.org")?.keys.map(\.kid) == [first.kid])

        // Replaced, then removed: the resolver keeps what it read.
        try Data(SHCJWKSet(keys: [second.publicJWK]).serialized()).write(to: jwks, options: .atomic)
        #expect(try await resolver.keySet(issuer: "https://issuer.example.org")?.keys.map(\.kid) == [first.kid])
        try FileManager.default.removeItem(at: jwks)
        #expect(try await resolver.keySet(issuer: "https://issuer.example.org")?.keys.map(\.kid) == [first.kid])
        #expect(try await resolver.keySet(issuer: "https://other.example.org") == nil)

        // Revocation lists are read from the folder's crl directory.
        let crl = root.appendingPathComponent(".well-known/crl")
        try FileManager.default.createDirectory(at: crl, withIntermediateDirectories: true)
        try Data(#"{"kid":"\#(first.kid)","method":"rid","ctr":1,"rids":["abc"]}"#.utf8).write(to: crl.appendingPathComponent("\(first.kid).json"))
        #expect(try await resolver.revocationList(issuer: "https://issuer.example.org", kid: first.kid)?.ctr == 1)
        #expect(try await resolver.revocationList(issuer: "https://issuer.example.org", kid: "../jwks") == nil)
    }
}
