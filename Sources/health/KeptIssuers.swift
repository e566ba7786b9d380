import Foundation
import OpenHealthKit

/// `issuer-keys.json` beside a store: the issuers whose keys are kept in folders beside it (as
/// `health demo --keep` keeps its demo issuer's), so that `health ui` over that store verifies
/// their cards offline, as `--issuer ISS=DIR` would.
///
/// The file is `{"issuers":{"https://issuer.example":"folder"}}`, each folder relative to the
/// store's folder and holding `.well-known/jwks.json`. It is read only beside the store the
/// command opens: whoever may write there may change the store too.
enum KeptIssuers {
    /// The file's name.
    static let fileName = "issuer-keys.json"

    /// The issuers of the `issuer-keys.json` in `folder` as `--issuer` values (`ISS=DIR`, DIR
    /// absolute), for the folders that exist; none when there is no such file or it cannot be read.
    static func issuerArguments(in folder: URL) -> [String] {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent(fileName)),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let issuers = object["issuers"] as? [String: String] else { return [] }
        return issuers.sorted { $0.key < $1.key }.compactMap { iss, relative in
            // Only folders inside `folder`: no absolute paths, no way up.
            guard !iss.isEmpty, !iss.contains("="), !relative.isEmpty, !relative.hasPrefix("/"),
                  !relative.split(separator: "/").contains("..") else { return nil }
            let issuerFolder = folder.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: issuerFolder.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
            return "\(iss)=\(issuerFolder.path)"
        }
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
    }
}
