import CommonSupport
import Crypto
import ExactJSON
import Foundation

/// Issues SMART Health Cards: builds the claims, minimizes the bundle, compresses it with raw
/// DEFLATE and signs ES256 with raw r‖s (rules 11-21, 23-29).
public struct SHCIssuer: Sendable {
    /// The signing key.
    public let key: SHCIssuerKey
    /// The issuer URL (`iss`): `https`, no trailing `/`.
    public let issuer: String

    /// Creates an issuer. Fails when `issuer` breaks rule 6.
    public init(key: SHCIssuerKey, issuer: String) throws(SHCIssueError) {
        guard SHCIssuer.isValidIssuerURL(issuer) else { throw .invalidIssuer }
        self.key = key
        self.issuer = issuer
    }

    static func isValidIssuerURL(_ issuer: String) -> Bool {
        guard issuer.hasPrefix("https://"), !issuer.hasSuffix("/"),
              !issuer.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 >= 0x7F }),
              let url = URL(string: issuer), let host = url.host, !host.isEmpty else { return false }
        return true
    }

    /// Issues a card from FHIR Bundle JSON.
    ///
    /// - Parameters:
    ///   - bundle: the FHIR `Bundle` JSON; it is minimized unless `minimizer` is nil.
    ///   - types: extra `vc.type` values (e.g. the deprecated `#immunization`); `#health-card` is always first.
    ///   - nbf: the issuance time (written in seconds with millisecond precision).
    ///   - exp: an expiration time, if the card should expire (usually not).
    ///   - rid: a revocation id (see `SHCRevocation.rid(secret:kid:subject:)`).
    ///   - fhirVersion: the FHIR version of the bundle.
    ///   - minimizer: how to minimize the bundle; nil to use it as given.
    /// - Returns: the compact JWS.
    public func issue(bundle: [UInt8], types: [String] = [], nbf: Date, exp: Date? = nil, rid: String? = nil,
                      fhirVersion: String = "4.0.1",
                      minimizer: SHCBundleMinimizer? = SHCBundleMinimizer()) throws(SHCIssueError) -> String {
        let json: JSONValue
        do { json = try SHCLimits.default.parseJSON(bundle) } catch { throw .invalidBundleJSON(error) }
        return try issue(bundle: json, types: types, nbf: nbf, exp: exp, rid: rid, fhirVersion: fhirVersion, minimizer: minimizer)
    }

    /// Issues a card from a FHIR Bundle value (see the `issue(bundle:…)` above, which takes the bundle's bytes).
    public func issue(bundle: JSONValue, types: [String] = [], nbf: Date, exp: Date? = nil, rid: String? = nil,
                      fhirVersion: String = "4.0.1",
                      minimizer: SHCBundleMinimizer? = SHCBundleMinimizer()) throws(SHCIssueError) -> String {
        guard bundle["resourceType"]?.stringValue == "Bundle" else { throw .notABundle("resourceType is not Bundle") }
        let fhirBundle = try minimizer?.minimize(bundle) ?? bundle
        if let rid, !SHCRevocation.isValidRid(rid) { throw .invalidRid }
        if let exp, exp.timeIntervalSince1970 <= nbf.timeIntervalSince1970 { throw .expirationNotAfterIssuance }
        var allTypes = [SHCCredentialType.healthCard]
        for type in types where !allTypes.contains(type) { allTypes.append(type) }

        var vc: [JSONMember] = [
            .init("type", .array(allTypes.map { .string($0) })),
            .init("credentialSubject", .object(members: [.init("fhirVersion", .string(fhirVersion)), .init("fhirBundle", fhirBundle)])),
        ]
        if let rid { vc.append(.init("rid", .string(rid))) }
        var claims: [JSONMember] = [
            .init("iss", .string(issuer)),
            .init("nbf", .number(double: SHCIssuer.seconds(nbf))),
            .init("vc", .object(members: vc)),
        ]
        if let exp { claims.append(.init("exp", .number(double: SHCIssuer.seconds(exp)))) }
        return try sign(header: JSONWriter.serialize(SHCJWSHeader(kid: key.kid).issuedJSON),
                    compressedPayload: RawDeflate.deflate(JSONWriter.serialize(.object(members: claims))))
    }

    /// A NumericDate in seconds with millisecond precision, as the spec examples write it.
    static func seconds(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000).rounded() / 1000
    }

    /// Signs raw header JSON and an already-compressed payload: `b64(header).b64(payload).b64(r‖s)`.
    /// No rule is checked (tests use it to build non-conforming cards).
    func sign(header: [UInt8], compressedPayload: [UInt8]) throws(SHCIssueError) -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(compressedPayload)
        guard let signature = try? key.privateKey.signature(for: Array(signingInput.utf8)) else { throw .signingFailed }
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
