import CommonSupport

/// Signs SMOAC requests on the client side: fills `envelope.signature` with base64 DER ECDSA
/// over the payload of the chosen style.
public enum RequestSigner {
    /// Which payload to sign.
    public enum Style: Sendable, Hashable {
        /// The strict payload (endpoint-bound, csiGuid and accessType signed).
        case strict
        /// The legacy payload, as the 2017–2018 clients signed it.
        case legacy
    }

    /// The payload `request` is signed over in `style`, or nil when the request cannot be
    /// signed that way (a strict writePermission without `accessType`).
    public static func payload(for request: some SignedRequest, style: Style) -> SignedPayload? {
        switch style {
        case .strict:
            return request.signedPayloads(mode: .strict).first
        case .legacy:
            return request.signedPayloads(mode: .compat).first {
                $0.quirks.contains(.legacySignedPayload) && !$0.quirks.contains(.olderFetchPublicClaimsPayload)
            }
        }
    }

    /// Signs `request` in place.
    public static func sign<Request: SignedRequest>(_ request: inout Request, with key: CsiSigningKey, style: Style = .strict) throws(KeyEncodingError) {
        guard let payload = payload(for: request, style: style) else { throw .signingFailed }
        request.envelope.signature = Base64URL.encodeStandard(try key.signature(for: payload.bytes, format: .der))
    }
}
