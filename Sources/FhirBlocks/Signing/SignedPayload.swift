import ExactJSON

/// The text a request's signature covers, rebuilt from its JSON members (§1.3): `"|" + field1 +
/// "|" + … + "|" + fieldN + "|"`, values verbatim, no escaping, signed as UTF-8.
///
/// The legacy payload of each endpoint is the doc's §1.4 field list. The strict payload (this
/// server's choice, documented in docs/fhirblocks-protocol.md §1.3–§1.4) adds what the legacy one leaves unsigned: it
/// starts with the endpoint path (so a signature for one endpoint cannot be used on another),
/// always contains the caller's `csiGuid` (placed right before `dateTime` when the legacy list
/// lacks it), and for `writePermission` contains `accessType` right before `csiGuid`; the
/// registration payload also signs `applicationClass` and uses compact JSON for the claims.
public struct SignedPayload: Sendable, Hashable, CustomStringConvertible {
    /// The payload text.
    public var text: String
    /// The quirks a signature over this payload means (empty for the strict payload).
    public var quirks: [CompatQuirk]

    /// Creates a payload from its fields.
    public init(fields: [String], quirks: [CompatQuirk] = []) {
        text = Self.join(fields)
        self.quirks = quirks
    }

    /// `"|" + fields.joined("|") + "|"`.
    public static func join(_ fields: [String]) -> String {
        "|" + fields.joined(separator: "|") + "|"
    }

    /// The UTF-8 bytes that are hashed and signed.
    public var bytes: [UInt8] { Array(text.utf8) }

    /// The payload text.
    public var description: String { text }

    /// The legacy clients' hand-built claims text (§1.4): for each claim, in order,
    /// `{"key": "<key>", "value": "<value>"}` (a space after each colon and after the comma inside
    /// an object), objects joined by `,` with no space, inside `[` `]`; values verbatim.
    public static func legacyClaimsText(_ claims: [PublicClaim]) -> String {
        "[" + claims.map { "{\"key\": \"\($0.key)\", \"value\": \"\($0.value)\"}" }.joined(separator: ",") + "]"
    }

    /// The strict payload's claims text: the claims as compact JSON (FHIRCore `JSONWriter`,
    /// members `key`, `value` in that order, minimal escaping).
    public static func compactClaimsJSON(_ claims: [PublicClaim]) -> String {
        JSONWriter.string(.array(claims.map(\.json)))
    }
}
