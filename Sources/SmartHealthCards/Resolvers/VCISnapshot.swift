import Crypto
import ExactJSON
import Foundation
import X509

/// The VCI directory's signed daily snapshot (`logs/vci_snapshot.json`): every listed issuer with
/// its keys and CRLs, usable offline as a trust list and as an ``IssuerKeyResolver``.
public struct VCISnapshot: IssuerKeyResolver, Hashable {
    /// The directory URL the snapshot was taken from.
    public let directoryURL: String?
    /// When the snapshot was taken (as written, ISO 8601).
    public let time: String?
    /// The issuers (name and URL) of the snapshot, usable as a trust list.
    public let directory: VCIDirectory
    private let keySets: [String: SHCJWKSet]
    private let revocationLists: [String: [String: SHCRevocationList]]

    /// Reads `{"directory","time","issuerInfo":[{"issuer":{iss,name,website},"keys":[…],"crls":[…]?}]}`.
    /// Malformed CRLs are skipped (the key's `crlVersion` then makes verification report the CRL as
    /// unavailable); a malformed issuer entry fails the whole snapshot.
    public init(jsonBytes: [UInt8]) throws(VCIDirectoryError) {
        let json: JSONValue
        do { json = try SHCLimits.default.parseJSON(jsonBytes) } catch { throw .invalidJSON(error) }
        guard let infos = json["issuerInfo"]?.arrayValue else { throw .unexpectedShape("issuerInfo") }
        var issuers: [VCIDirectory.Issuer] = []
        var keySets: [String: SHCJWKSet] = [:]
        var lists: [String: [String: SHCRevocationList]] = [:]
        for (position, info) in infos.enumerated() {
            guard let issuer = info["issuer"], let iss = issuer["iss"]?.stringValue,
                  let keys = info["keys"], case .array = keys else {
                throw .unexpectedShape("issuerInfo[\(position)]")
            }
            issuers.append(VCIDirectory.Issuer(iss: iss, name: issuer["name"]?.stringValue ?? iss,
                                               website: issuer["website"]?.stringValue,
                                               canonicalIssuer: issuer["canonical_iss"]?.stringValue))
            guard let keySet = try? SHCJWKSet(json: .object(members: [.init("keys", keys)])) else {
                throw .unexpectedShape("issuerInfo[\(position)].keys")
            }
            keySets[iss] = keySet
            for crl in info["crls"]?.arrayValue ?? [] {
                if let list = try? SHCRevocationList(json: crl) { lists[iss, default: [:]][list.kid] = list }
            }
        }
        directoryURL = json["directory"]?.stringValue
        time = json["time"]?.stringValue
        directory = VCIDirectory(issuers: issuers)
        self.keySets = keySets
        revocationLists = lists
    }

    /// Reads a snapshot file.
    public static func load(contentsOf url: URL) throws(VCIDirectoryError) -> VCISnapshot {
        guard let data = try? Data(contentsOf: url) else { throw .unreadable(path: url.path) }
        return try VCISnapshot(jsonBytes: Array(data))
    }

    /// Whether `signature` (DER ECDSA with SHA-512, as in `vci_snapshot.sig`) is a valid signature of
    /// `snapshot` by the P-521 key of `certificate` (PEM or DER, as `vci_snapshot.crt`).
    ///
    /// Only the signature is checked, not the certificate's own validity or issuer.
    public static func isValidSignature(snapshot: [UInt8], signature: [UInt8], certificate: [UInt8]) -> Bool {
        let text = String(decoding: certificate, as: UTF8.self)
        let parsed = text.contains("-----BEGIN CERTIFICATE-----") ? try? Certificate(pemEncoded: text) : try? Certificate(derEncoded: certificate)
        guard let parsed, let key = P521.Signing.PublicKey(parsed.publicKey),
              let ecdsa = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
        return key.isValidSignature(ecdsa, for: SHA512.hash(data: snapshot))
    }

    /// The keys the snapshot holds for `issuer`, or nil when it is not in the snapshot.
    public func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        keySets[issuer]
    }

    /// The CRL the snapshot holds for `issuer`'s key `kid`, if any.
    public func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        revocationLists[issuer]?[kid]
    }
}
