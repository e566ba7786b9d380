extension CsiRegistrationRequest {
    /// Strict: `|csi/requestCsiRegistration|ecdsa|<publicKey>|<deviceId>|<applicationClass>|<csiGuid>|<dateTime>|<nonce>|<compact claims JSON>|`.
    /// Legacy (§1.4, Appendix A): `|ecdsa|<publicKey>|<deviceId>|<dateTime>|<nonce>|<hand-built claims>|`.
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        let strict = SignedPayload(fields: [endpoint.path, envelope.cipher, publicKey, deviceId, applicationClass, envelope.csiGuid,
                                            envelope.dateTime, envelope.nonce, SignedPayload.compactClaimsJSON(publicClaims)])
        guard mode == .compat else { return [strict] }
        let legacy = SignedPayload(fields: [envelope.cipher, publicKey, deviceId, envelope.dateTime, envelope.nonce,
                                            SignedPayload.legacyClaimsText(publicClaims)],
                                   quirks: [.legacySignedPayload, .handBuiltClaimsText])
        return [strict, legacy]
    }
}
