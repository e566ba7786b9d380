import CommonSupport

/// Verifies a signed SMOAC request (§1.3, §1.5): rebuilds the payload from the JSON members and
/// checks the base64 DER ECDSA P-256 signature against the csi's key.
///
/// In compat mode the strict payload is tried first, then the legacy ones; the quirks of the
/// payload that verified (and of the body's shape) are returned for the audit log. Freshness
/// (`dateTime`, `nonce`) is checked separately by ``ReplayGuard``, after the signature.
public enum SignedRequestVerifier {
    /// Verifies `request` against the key registered for its csiGuid.
    public static func verify(_ request: some SignedRequest, publicKey: CsiPublicKey, mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk] {
        let shape = try request.shapeQuirks(mode: mode)
        let signature: [UInt8]
        do {
            signature = try Base64URL.decode(request.envelope.signature, alphabet: .standard, padding: .required)
        } catch {
            throw .badSignature("\(request.endpoint.path): signature is not base64: \(Base64DecodingError(error, in: request.envelope.signature))")
        }
        for payload in request.signedPayloads(mode: mode)
        where publicKey.isValidSignature(signature, format: .der, for: payload.bytes) {
            return Accepted((), quirks: shape + payload.quirks).quirks
        }
        throw .badSignature("\(request.endpoint.path): signature does not verify")
    }

    /// Verifies a registration against the key it presents (proof of possession) and returns
    /// that key.
    public static func verifyRegistration(_ request: CsiRegistrationRequest, mode: ProtocolMode) throws(SMOACError) -> Accepted<CsiPublicKey> {
        let key: Accepted<CsiPublicKey>
        do {
            key = try CsiPublicKey.parseWire(request.publicKey, mode: mode)
        } catch {
            throw .malformedRequest("\(request.endpoint.path): \"publicKey\": \(error)")
        }
        let quirks = try verify(request, publicKey: key.value, mode: mode)
        return Accepted(key.value, quirks: key.quirks + quirks)
    }
}
