extension DeletePermissionRequest {
    /// Strict: `|permission/deletePermission|<permissionedGuidBeingDeleted>|<csiGuid>|<dateTime>|<nonce>|`.
    /// Legacy: `|<permissionedGuidBeingDeleted>|<dateTime>|<nonce>|`.
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        let strict = SignedPayload(fields: [endpoint.path, permissionedGuidBeingDeleted, envelope.csiGuid, envelope.dateTime, envelope.nonce])
        guard mode == .compat else { return [strict] }
        return [strict, SignedPayload(fields: [permissionedGuidBeingDeleted, envelope.dateTime, envelope.nonce], quirks: [.legacySignedPayload])]
    }
}
