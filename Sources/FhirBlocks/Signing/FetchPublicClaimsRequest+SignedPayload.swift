extension FetchPublicClaimsRequest {
    /// Strict: `|csi/fetchPublicClaims|<desiredCsiGuid>|<csiGuid>|<dateTime>|<nonce>|`.
    /// Legacy: `|<desiredCsiGuid>|<dateTime>|<nonce>|`, and the older
    /// `|ecdsa|<csiGuid>|<dateTime>|<desiredCsiGuid>|<nonce>|`.
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        let strict = SignedPayload(fields: [endpoint.path, desiredCsiGuid, envelope.csiGuid, envelope.dateTime, envelope.nonce])
        guard mode == .compat else { return [strict] }
        return [
            strict,
            SignedPayload(fields: [desiredCsiGuid, envelope.dateTime, envelope.nonce], quirks: [.legacySignedPayload]),
            SignedPayload(fields: [envelope.cipher, envelope.csiGuid, envelope.dateTime, desiredCsiGuid, envelope.nonce],
                          quirks: [.legacySignedPayload, .olderFetchPublicClaimsPayload]),
        ]
    }
}
