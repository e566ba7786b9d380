import CommonSupport
import Foundation
import SmartHealthCards

/// The keys of the connection's own server as a health card issuer. The cards a sync fetches
/// through `$health-cards-issue` carry the server's public URL as `iss`; the issuers trusted
/// here are the https URLs the FHIR base lies under (`https://host:port`, and each path prefix
/// of the base, the base included), because the person chose that server when connecting. Keys
/// are read from `iss/.well-known/jwks.json` (revocation lists from
/// `iss/.well-known/crl/KID.json`) over the sync's HTTP client, so over the same TLS trust as
/// the connection (`--ca-cert`, or the system's). Every other issuer gets nil, for the caller's
/// resolvers and trust policy to judge; an http FHIR base trusts no issuer here.
struct ConnectionIssuerKeyResolver: IssuerKeyResolver {
    /// The trusted issuers (no trailing slash).
    let issuers: Set<String>
    let http: SMARTHTTP

    /// The resolver for the server of `fhirBase`, or nil when it is not https.
    init?(fhirBase: String, http: SMARTHTTP) {
        guard fhirBase.lowercased().hasPrefix("https://"), let components = URLComponents(string: fhirBase), let host = components.host,
              !host.isEmpty, components.query == nil else { return nil }
        var origin = "https://\(host)"
        if let port = components.port { origin += ":\(port)" }
        var issuers: Set<String> = [origin]
        var prefix = origin
        for segment in components.path.split(separator: "/") {
            prefix += "/\(segment)"
            issuers.insert(prefix)
        }
        self.issuers = issuers
        self.http = http
    }

    func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        guard issuers.contains(issuer) else { return nil }
        guard let bytes = try await fetch("\(issuer)/.well-known/jwks.json", issuer: issuer, missingIsNil: false) else { return nil }
        do {
            return try SHCJWKSet(jsonBytes: bytes)
        } catch {
            throw .malformedKeySet(issuer: issuer, error)
        }
    }

    func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        guard issuers.contains(issuer), !kid.isEmpty, kid.utf8.allSatisfy(Base64URL.isAlphabet) else { return nil }
        guard let bytes = try await fetch("\(issuer)/.well-known/crl/\(kid).json", issuer: issuer, missingIsNil: true) else { return nil }
        do {
            return try SHCRevocationList(jsonBytes: bytes)
        } catch {
            throw .malformedRevocationList(issuer: issuer, kid: kid, error)
        }
    }

    /// The body of a 200 answer; nil for a 404 when `missingIsNil` (an issuer without a
    /// revocation list for a key).
    private func fetch(_ url: String, issuer: String, missingIsNil: Bool) async throws(SHCResolverError) -> [UInt8]? {
        let response: SMARTHTTP.Response
        do {
            response = try await http.get(url, accept: "application/json")
        } catch {
            throw .unreadable(issuer: issuer, resource: url, reason: error.description)
        }
        if missingIsNil, response.status == 404 { return nil }
        guard response.status == 200 else { throw .unreadable(issuer: issuer, resource: url, reason: "answered \(response.status)") }
        return response.body
    }
}
