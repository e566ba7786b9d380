extension FetchPermissionsGrantedByMeRequest {
    /// Strict: `|permission/fetchPermissionsPreviouslyGrantedByMe|<csiGuid>|<dateTime>|<nonce>|`.
    /// Legacy: `|<csiGuid>|<dateTime>|<nonce>|`.
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        let strict = SignedPayload(fields: [endpoint.path, envelope.csiGuid, envelope.dateTime, envelope.nonce])
        guard mode == .compat else { return [strict] }
        return [strict, SignedPayload(fields: [envelope.csiGuid, envelope.dateTime, envelope.nonce], quirks: [.legacySignedPayload])]
    }
}
