/// How an ECDSA P-256 signature is encoded.
public enum SignatureFormat: String, Sendable, Hashable, CaseIterable {
    /// ASN.1 DER `SEQUENCE { r INTEGER, s INTEGER }` (X9.62), what Apple's
    /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA256` produces: the SMOAC envelope and the
    /// legacy VACA assertions.
    case der
    /// The 64-byte `r ‖ s` of JWS ES256 (RFC 7518 §3.4).
    case raw
}
