import CommonSupport
import Crypto
import ExactJSON
import Foundation

/// One JSON Web Key as published in an issuer's `.well-known/jwks.json`, read leniently (every
/// member optional) and judged against rules 2-4, 7, 9 and 43 once, when it is created.
///
/// The P-256 public key and the RFC 7638 thumbprint are computed here, so verifying a card does
/// no key parsing.
public struct SHCJWK: Sendable, Hashable {
    /// The JWK exactly as read (or built), members in order.
    public let json: JSONValue
    /// `kty`.
    public let kty: String?
    /// `kid`.
    public let kid: String?
    /// `use`.
    public let use: String?
    /// `alg`.
    public let alg: String?
    /// `crv`.
    public let crv: String?
    /// `x` (base64url).
    public let x: String?
    /// `y` (base64url).
    public let y: String?
    /// Whether the JWK carries the private member `d`.
    public let hasPrivateMember: Bool
    /// `crlVersion` when it is an integer (or, leniently, a numeric string) of at least 1.
    public let crlVersion: Int?
    /// Whether `crlVersion` was present at all.
    public let hasCRLVersion: Bool
    /// Whether `crlVersion` was a numeric string such as `"1"` (a real-world quirk, accepted).
    public let crlVersionIsString: Bool
    /// `x5c` certificates (base64 DER), leaf first.
    public let x5c: [String]?
    /// The RFC 7638 SHA-256 thumbprint, base64url, when `kty`, `crv`, `x` and `y` are present.
    public let thumbprint: String?
    /// The `x5c` leaf certificate, when `x5c` is present and readable.
    public let x5cLeaf: SHCX509Leaf?
    /// Problems with the key itself (rules 2-4, 7, 9, 43), found when it was read.
    public let problems: [SHCFinding]
    /// The P-256 verification key, when `x`/`y` are a valid P-256 point.
    let publicKey: P256.Signing.PublicKey?

    /// Reads a JWK from its JSON object.
    public init(json: JSONValue) throws(SHCKeyError) {
        guard case .object = json else { throw .notAnObject }
        self.init(object: json)
    }

    /// Reads a JWK from a JSON value known to be an object.
    init(object json: JSONValue) {
        self.json = json
        kty = json["kty"]?.stringValue
        kid = json["kid"]?.stringValue
        use = json["use"]?.stringValue
        alg = json["alg"]?.stringValue
        crv = json["crv"]?.stringValue
        x = json["x"]?.stringValue
        y = json["y"]?.stringValue
        hasPrivateMember = json["d"] != nil

        var problems: [SHCFinding] = []
        let keyName = kid.map { "key \($0)" } ?? "key without kid"
        if kty != "EC" { problems.append(SHCFinding(.keyType, "\(keyName) has kty \(kty.map { "\"\($0)\"" } ?? "missing"), expected \"EC\"")) }
        if crv != "P-256" { problems.append(SHCFinding(.keyCurve, "\(keyName) has crv \(crv.map { "\"\($0)\"" } ?? "missing"), expected \"P-256\"")) }
        if use != "sig" { problems.append(SHCFinding(.keyUse, "\(keyName) has use \(use.map { "\"\($0)\"" } ?? "missing"), expected \"sig\"")) }
        if alg != "ES256" { problems.append(SHCFinding(.keyAlg, "\(keyName) has alg \(alg.map { "\"\($0)\"" } ?? "missing"), expected \"ES256\"")) }
        if hasPrivateMember { problems.append(SHCFinding(.keyPrivate, "\(keyName) publishes the private member \"d\"")) }

        var publicKey: P256.Signing.PublicKey?
        // Some production issuers drop leading zero bytes; accept them, padded, with a warning.
        if let x, let y, let parsed = P256JWK.publicKey(x: x, y: y, acceptingShortCoordinates: true) {
            if parsed.shortened {
                problems.append(SHCFinding(.keyCoordinateLength, "\(keyName) has x/y shorter than 32 bytes (leading zeros dropped)"))
            }
            publicKey = parsed.key
        }
        if crv == "P-256" || crv == nil, publicKey == nil {
            problems.append(SHCFinding(.keyCoordinates, "\(keyName) has no valid P-256 point in x/y"))
        }
        self.publicKey = crv == "P-256" ? publicKey : nil

        if let kty, let crv, let x, let y {
            thumbprint = SHCJWK.thumbprint(kty: kty, crv: crv, x: x, y: y)
        } else {
            thumbprint = nil
        }
        if kid == nil || kid != thumbprint {
            problems.append(SHCFinding(.keyKid, kid == nil
                ? "key has no kid; expected its RFC 7638 thumbprint \(thumbprint ?? "(not computable)")"
                : "\(keyName): kid is not the RFC 7638 thumbprint \(thumbprint ?? "(not computable)")"))
        }

        switch json["crlVersion"] {
        case nil:
            crlVersion = nil; hasCRLVersion = false; crlVersionIsString = false
        case .number(let text)?:
            hasCRLVersion = true; crlVersionIsString = false
            if let value = Int(text), value >= 1 {
                crlVersion = value
            } else {
                crlVersion = nil
                problems.append(SHCFinding(.crlVersion, "\(keyName) has crlVersion \(text), expected an integer of at least 1"))
            }
        case .string(let text)?:
            hasCRLVersion = true; crlVersionIsString = true
            if let value = Int(text), value >= 1 {
                crlVersion = value
                problems.append(SHCFinding(.crlLenient, "\(keyName) has crlVersion as the string \"\(text)\"; a number is expected"))
            } else {
                crlVersion = nil
                problems.append(SHCFinding(.crlVersion, "\(keyName) has a non-numeric crlVersion string"))
            }
        case let other?:
            hasCRLVersion = true; crlVersionIsString = false; crlVersion = nil
            problems.append(SHCFinding(.crlVersion, "\(keyName) has crlVersion of JSON kind \(other.kindName), expected an integer"))
        }

        var leaf: SHCX509Leaf?
        if let chain = json["x5c"] {
            let certificates = chain.arrayValue?.compactMap(\.stringValue) ?? []
            if certificates.isEmpty || certificates.count != chain.arrayValue?.count {
                x5c = certificates.isEmpty ? nil : certificates
                problems.append(SHCFinding(.x5cFormat, "\(keyName) has an x5c that is not a non-empty array of strings"))
            } else {
                x5c = certificates
                if let der = Base64URL.decodeStandard(certificates[0]), let parsed = SHCX509Leaf(der: der) {
                    leaf = parsed
                    if let xBytes = x.flatMap({ try? Base64URL.decode($0) }), let yBytes = y.flatMap({ try? Base64URL.decode($0) }),
                       parsed.subjectPublicKey == [0x04] + xBytes + yBytes {
                        // The leaf certifies this key.
                    } else {
                        problems.append(SHCFinding(.x5cKeyMismatch, "\(keyName): the x5c leaf certificate's public key differs from the JWK's x/y"))
                    }
                } else {
                    problems.append(SHCFinding(.x5cFormat, "\(keyName): the x5c leaf is not a base64 (not base64url) DER X.509 certificate"))
                }
            }
        } else {
            x5c = nil
        }
        x5cLeaf = leaf
        self.problems = problems
    }

    /// Reads a JWK from JSON text.
    public init(jsonBytes: [UInt8]) throws(SHCKeyError) {
        let value: JSONValue
        do { value = try SHCLimits.default.parseJSON(jsonBytes) } catch { throw .invalidJSON(error) }
        try self.init(json: value)
    }

    /// The RFC 7638 SHA-256 thumbprint of an EC key: base64url of SHA-256 over
    /// `{"crv":…,"kty":…,"x":…,"y":…}` (members in lexicographic order, no whitespace).
    public static func thumbprint(kty: String, crv: String, x: String, y: String) -> String {
        P256JWK.thumbprint(kty: kty, crv: crv, x: x, y: y)
    }

    /// Whether this key passes every key rule (2-4, 7) and so may verify cards.
    public var isValidSigningKey: Bool {
        publicKey != nil && !problems.contains { $0.severity == .error && $0.code != .crlVersion }
    }

    /// The same JWK with `crlVersion` set (or replaced), other members unchanged.
    public func settingCRLVersion(_ version: Int) -> SHCJWK {
        guard case .object(var object) = json else { return self }
        if let index = object.members.firstIndex(where: { $0.key == "crlVersion" }) {
            object.members[index].value = .number(integer: version)
        } else {
            object.members.append(.init("crlVersion", .number(integer: version)))
        }
        return SHCJWK(object: .object(object))
    }

    /// Two JWKs are equal when their JSON is.
    public static func == (lhs: SHCJWK, rhs: SHCJWK) -> Bool { lhs.json == rhs.json }

    /// Hashes the JSON.
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}
