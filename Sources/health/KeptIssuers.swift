import Foundation
import OpenHealthKit

/// `issuer-keys.json` beside a store: the issuers whose keys are kept in folders beside it (as
/// `health demo --keep` keeps its demo issuer's), so that `health ui` over that store verifies
/// their cards offline, as `--issuer ISS=DIR` would.
///
/// The file is `{"issuers":{"https://issuer.example":"folder"}}`, each folder relative to the
/// store's folder and holding `.well-known/jwks.json`. It is read only beside the store the
/// command opens, and only what cannot shadow a real issuer is taken from it:
/// - issuers on names reserved for examples and tests (RFC 2606 and 6761: `*.example`, `*.test`,
///   `*.invalid`, `localhost`, `example.com`…), so a planted file cannot attach a local key to a
///   real issuer, whose keys are fetched over HTTPS;
/// - a file owned by the person running the command and writable by no one else;
/// - folders that stay inside the store's folder once symbolic links are followed.
enum KeptIssuers {
    /// The file's name.
    static let fileName = "issuer-keys.json"

    /// The issuers of the `issuer-keys.json` in `folder` as `--issuer` values (`ISS=DIR`, DIR
    /// absolute), for the folders that exist; none when there is no such file or it cannot be read.
    static func issuerArguments(in folder: URL) -> [String] {
        let file = folder.appendingPathComponent(fileName)
        guard isPrivate(file), let data = try? Data(contentsOf: file),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let issuers = object["issuers"] as? [String: String] else { return [] }
        let root = folder.resolvingSymlinksInPath().path
        return issuers.sorted { $0.key < $1.key }.compactMap { iss, relative in
            // Only folders inside `folder`: no absolute paths, no way up, no link out.
            guard !iss.isEmpty, !iss.contains("="), isReservedForExamples(iss), !relative.isEmpty, !relative.hasPrefix("/"),
                  !relative.split(separator: "/").contains("..") else { return nil }
            let issuerFolder = folder.appendingPathComponent(relative)
            guard issuerFolder.resolvingSymlinksInPath().path.hasPrefix(root + "/") else { return nil }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: issuerFolder.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
            return "\(iss)=\(issuerFolder.path)"
        }
    }

    /// Whether an issuer URL's host is a name reserved for examples, tests or this machine
    /// (RFC 2606, RFC 6761), which no real issuer can have.
    static func isReservedForExamples(_ iss: String) -> Bool {
        guard let components = URLComponents(string: iss), components.scheme?.lowercased() == "https",
              let host = components.host?.lowercased(), !host.isEmpty else { return false }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if ["localhost", "example", "test", "invalid", "example.com", "example.net", "example.org"].contains(name) { return true }
        return [".example", ".test", ".invalid", ".localhost", ".example.com", ".example.net", ".example.org"].contains { name.hasSuffix($0) }
    }

    /// Whether `file` is owned by the person running the command and writable by no one else.
    static func isPrivate(_ file: URL) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
              let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value,
              let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue else { return false }
        return owner == getuid() && permissions & 0o022 == 0
    }

    /// The `issuer-keys.json` issuers beside `store`'s database file (none for a store in memory).
    static func issuerArguments(beside store: HKHealthStore) -> [String] {
        guard case .file(let database) = store.configuration.location else { return [] }
        return issuerArguments(in: database.deletingLastPathComponent())
    }

    /// Records in `folder`'s `issuer-keys.json` that `iss`'s keys are in `relative` (kept
    /// entries for other issuers stay).
    static func record(_ iss: String, folder relative: String, in folder: URL) throws {
        let file = folder.appendingPathComponent(fileName)
        var issuers: [String: String] = [:]
        if let data = try? Data(contentsOf: file), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let kept = object["issuers"] as? [String: String] {
            issuers = kept
        }
        guard issuers[iss] != relative else { return }
        issuers[iss] = relative
        let data = try JSONSerialization.data(withJSONObject: ["issuers": issuers], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        try (data + Data("\n".utf8)).write(to: file, options: .atomic)
        // Writable by its owner only, whatever the umask: the file is read only when it is so.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }
}
