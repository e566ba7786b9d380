/// How strictly the server reads requests (§1.10).
///
/// - ``strict`` (the default): standard JWS ES256 assertions with unique `jti`, signed payloads
///   that bind the endpoint, the caller's csiGuid and (for grants) `accessType`, percent-encoded
///   forms, `Bearer <token>` with a space.
/// - ``compat``: additionally accepts every legacy-client quirk of §1.10. Each acceptance is
///   reported as a ``CompatQuirk`` so the server can audit it.
public enum ProtocolMode: String, Sendable, Hashable, CaseIterable {
    /// Modern clients only.
    case strict
    /// Modern clients and the 2017–2018 FhirBlocks clients.
    case compat

    /// The default mode.
    public static let `default`: ProtocolMode = .strict
}
