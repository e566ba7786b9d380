import ArgumentParser
import Foundation
import SmartHealthCards

/// `health shc revoke --dir DIR --kid KID --rid RID`.
struct ShcRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a card's rid: updates DIR/.well-known/crl/KID.json (ctr + 1) and the key's crlVersion in jwks.json.")

    @Option(help: ArgumentHelp("The issuer folder (holding .well-known/jwks.json).", valueName: "DIR"))
    var dir: String

    // Key ids and revocation ids are base64url, so they may start with "-": take the next
    // argument as the value whatever it looks like.
    @Option(parsing: .unconditional, help: "The key id the card was signed with.")
    var kid: String

    @Option(parsing: .unconditionalSingleValue, help: "The revocation id to revoke (repeatable).")
    var rid: [String]

    @Option(help: ArgumentHelp("Revoke only cards issued before this instant (ISO 8601).", valueName: "ISO8601"))
    var issuedBefore: String?

    func run() async throws {
        guard !rid.isEmpty else { throw UsageError("give at least one --rid") }
        for value in rid where !SHCRevocation.isValidRid(value) {
            throw UsageError("'\(value)' is not a revocation id (base64url, at most 24 characters)")
        }
        let before = try issuedBefore.map(parseInstant)
        let folder = SHCWellKnownFolder(root: URL(fileURLWithPath: dir))
        let list: SHCRevocationList
        do {
            list = try folder.revoke(rid, kid: kid, issuedBefore: before)
        } catch .ridAlreadyListed(let listed) {
            throw UsageError("\(listed) is already revoked for key \(kid) in \(dir) (a revocation list names each rid once)")
        } catch .existingFileUnreadable(let path) {
            throw UsageError("cannot revoke in \(dir): \(path) exists but does not read; it is left unchanged")
        } catch {
            throw UsageError("cannot revoke in \(dir): \(error) (is \(kid) a key in \(dir)/.well-known/jwks.json?)")
        }
        print("revoked \(rid.joined(separator: ", ")) for key \(kid); revocation list version \(list.ctr)")
    }
}
