extension FetchPermissionsGivenToMeRequest {
    /// Strict: `|permission/fetchPermissionsGivenToMe|<csiGuid>|<dateTime>|<nonce>|`.
    /// Legacy: `|<dateTime>|<nonce>|` (the caller is bound only through the key lookup).
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        let strict = SignedPayload(fields: [endpoint.path, envelope.csiGuid, envelope.dateTime, envelope.nonce])
        guard mode == .compat else { return [strict] }
        return [strict, SignedPayload(fields: [envelope.dateTime, envelope.nonce], quirks: [.legacySignedPayload])]
    }
}
