import Foundation

/// The JWT claims of a card (rules 15-21), as read from its payload.
public struct SHCClaims: Sendable, Hashable, Encodable {
    /// `iss`: the issuer URL.
    public var iss: String?
    /// `nbf`: issuance time, seconds since 1970 (may be fractional).
    public var nbf: Double?
    /// `exp`: expiration time, seconds since 1970, if any.
    public var exp: Double?
    /// `vc.rid`: the revocation id, if any.
    public var rid: String?
    /// `vc.type`: the credential types, in order.
    public var types: [String]
    /// `vc.credentialSubject.fhirVersion`.
    public var fhirVersion: String?

    /// Creates claims.
    public init(iss: String? = nil, nbf: Double? = nil, exp: Double? = nil, rid: String? = nil,
                types: [String] = [], fhirVersion: String? = nil) {
        self.iss = iss
        self.nbf = nbf
        self.exp = exp
        self.rid = rid
        self.types = types
        self.fhirVersion = fhirVersion
    }

    /// `nbf` as a date.
    public var issuedDate: Date? { nbf.map(Date.init(timeIntervalSince1970:)) }
    /// `exp` as a date.
    public var expirationDate: Date? { exp.map(Date.init(timeIntervalSince1970:)) }
}
