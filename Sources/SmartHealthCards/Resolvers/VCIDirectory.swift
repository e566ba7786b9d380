import ExactJSON
import Foundation

/// The VCI issuer directory, `vci-issuers.json` (rule 55): who a verifier trusts.
///
/// Matching is exact on `iss`; `canonical_iss` groups aliases of one issuer (for example Epic
/// proxy URLs), and ``aliases(of:)`` lists them.
public struct VCIDirectory: Sendable, Hashable {
    /// One participating issuer.
    public struct Issuer: Sendable, Hashable, Encodable {
        /// The issuer URL, exactly as cards carry it in `iss`.
        public var iss: String
        /// The display name.
        public var name: String
        /// The issuer's website, if listed.
        public var website: String?
        /// The canonical `iss` this entry is an alias of, if any.
        public var canonicalIssuer: String?

        /// Creates an entry.
        public init(iss: String, name: String, website: String? = nil, canonicalIssuer: String? = nil) {
            self.iss = iss
            self.name = name
            self.website = website
            self.canonicalIssuer = canonicalIssuer
        }
    }

    /// The participating issuers, in file order.
    public let issuers: [Issuer]
    private let positions: [String: Int]

    /// Creates a directory from entries (the first entry wins for a repeated `iss`).
    public init(issuers: [Issuer]) {
        self.issuers = issuers
        var positions: [String: Int] = [:]
        for (position, issuer) in issuers.enumerated() where positions[issuer.iss] == nil {
            positions[issuer.iss] = position
        }
        self.positions = positions
    }

    /// Reads `{"participating_issuers":[{"iss","name","website"?,"canonical_iss"?}…]}`
    /// (the upstream example file's `example_issuers` is accepted too).
    public init(jsonBytes: [UInt8]) throws(VCIDirectoryError) {
        let json: JSONValue
        do { json = try SHCLimits.default.parseJSON(jsonBytes) } catch { throw .invalidJSON(error) }
        guard let entries = (json["participating_issuers"] ?? json["example_issuers"])?.arrayValue else {
            throw .unexpectedShape("participating_issuers")
        }
        var issuers: [Issuer] = []
        for entry in entries {
            guard let iss = entry["iss"]?.stringValue, let name = entry["name"]?.stringValue else {
                throw .unexpectedShape("participating_issuers[\(issuers.count)]")
            }
            issuers.append(Issuer(iss: iss, name: name, website: entry["website"]?.stringValue,
                                  canonicalIssuer: entry["canonical_iss"]?.stringValue))
        }
        self.init(issuers: issuers)
    }

    /// Reads a directory file.
    public static func load(contentsOf url: URL) throws(VCIDirectoryError) -> VCIDirectory {
        guard let data = try? Data(contentsOf: url) else { throw .unreadable(path: url.path) }
        return try VCIDirectory(jsonBytes: Array(data))
    }

    /// The entry whose `iss` is exactly `iss`.
    public func issuer(for iss: String) -> Issuer? {
        positions[iss].map { issuers[$0] }
    }

    /// Every entry of the same issuer as `iss` (sharing its canonical `iss`), `iss`'s own first.
    public func aliases(of iss: String) -> [Issuer] {
        guard let entry = issuer(for: iss) else { return [] }
        let canonical = entry.canonicalIssuer ?? entry.iss
        return [entry] + issuers.filter { $0.iss != entry.iss && ($0.canonicalIssuer ?? $0.iss) == canonical }
    }
}
