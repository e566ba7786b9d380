import CommonSupport
import ExactJSON

/// A JWT assertion split and decoded, before any check of its claims (§1.4, §1.5).
///
/// Strict mode reads RFC 7515 compact JWS: three base64url parts without padding. Compat mode
/// also reads the legacy form: standard base64 with padding (``CompatQuirk/legacyJWTEncoding``).
/// Only `alg: ES256` is accepted; `none`, `HS256` and every other algorithm are refused before
/// any key is used.
public struct CompactAssertion: Sendable, Hashable {
    /// The longest assertion read (8 KiB).
    public static let maximumLength = 8192

    /// The header.
    public var header: JWTHeader
    /// The claims.
    public var claims: JWTClaims
    /// The decoded payload bytes (what the legacy signature covers).
    public var payloadBytes: [UInt8]
    /// `ASCII(part1 + "." + part2)` (what a JWS signature covers).
    public var signingInput: [UInt8]
    /// The decoded signature bytes.
    public var signature: [UInt8]
    /// Quirks met while decoding.
    public var quirks: [CompatQuirk]

    /// Splits and decodes `text`.
    public init(_ text: String, mode: ProtocolMode) throws(AssertionError) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= Self.maximumLength else { throw .tooLong }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected 3 dot-separated parts, found \(parts.count)") }
        guard parts.allSatisfy({ !$0.isEmpty }) else { throw .malformed("empty part") }
        var quirks: [CompatQuirk] = []
        var decoded: [[UInt8]] = []
        // RFC 7515 compact JWS, read as every module reads it; only what that refuses is looked
        // at part by part, for the error and for compat mode's legacy base64.
        if let jws = try? CompactJWS(utf8) {
            decoded = [jws.header, jws.payload, jws.signature]
        } else {
            for (index, part) in parts.enumerated() {
                let bytes = Array(part)
                if let strict = try? Base64URL.decode(utf8: bytes, alphabet: .url, padding: .forbidden) {
                    decoded.append(strict)
                } else if mode == .compat, let legacy = try? Base64URL.decode(utf8: bytes, alphabet: .either, padding: .optional) {
                    decoded.append(legacy)
                    if !quirks.contains(.legacyJWTEncoding) { quirks.append(.legacyJWTEncoding) }
                } else {
                    throw .malformed("part \(index + 1) is not \(mode == .strict ? "base64url without padding" : "base64")")
    }
            }
        }
        let headerJSON: JSONValue
        let payloadJSON: JSONValue
        do {
            headerJSON = try JSONParser.parse(decoded[0], maximumDepth: 4)
            payloadJSON = try JSONParser.parse(decoded[1], maximumDepth: 8)
        } catch {
            throw .malformed("header or payload is not JSON")
        }
        header = try JWTHeader(json: headerJSON)
        guard header.alg == "ES256" else { throw .unsupportedAlgorithm(header.alg) }
        if let typ = header.typ, typ.lowercased() != "jwt" { throw .malformed("typ is not JWT") }
        claims = try JWTClaims(json: payloadJSON)
        if claims.hasStringTimes {
            guard mode == .compat else { throw .invalidClaim("iat/exp must be numbers") }
            quirks.append(.stringTimeClaims)
        }
        payloadBytes = decoded[1]
        signingInput = Array(utf8[0..<(parts[0].count + 1 + parts[1].count)])
        signature = decoded[2]
        self.quirks = quirks
    }

    /// Verifies the signature with the issuer's key. Strict: a 64-byte `r‖s` over the signing
    /// input. Compat also: a DER signature over the signing input
    /// (``CompatQuirk/derJWSSignature``), or a DER signature over the payload bytes alone
    /// (``CompatQuirk/legacyJWTSignature``). Returns the quirks used.
    public func verifySignature(with key: CsiPublicKey, mode: ProtocolMode) throws(AssertionError) -> [CompatQuirk] {
        if key.isValidSignature(signature, format: .raw, for: signingInput) { return [] }
        guard mode == .compat else { throw .badSignature }
        if key.isValidSignature(signature, format: .der, for: signingInput) { return [.derJWSSignature] }
        if key.isValidSignature(signature, format: .der, for: payloadBytes) { return [.legacyJWTSignature] }
        throw .badSignature
    }
}
