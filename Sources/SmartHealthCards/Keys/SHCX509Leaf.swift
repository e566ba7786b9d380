import Crypto
import Foundation
import SwiftASN1
import X509

/// What a verifier needs from the leaf certificate of a JWK's `x5c` chain (rules 9-10): its
/// public key, validity period and `uniformResourceIdentifier` subject alternative names.
///
/// Read with swift-certificates. It is not a PKI validation: the certificate's signature is not
/// checked nor a path built to a trust anchor (rule 10c needs a configured PKI trust framework).
public struct SHCX509Leaf: Sendable, Hashable {
    /// The certificate's public key: the uncompressed point `04‖x‖y` of a P-256, P-384 or P-521
    /// key, else the DER SubjectPublicKeyInfo.
    public var subjectPublicKey: [UInt8]
    /// Start of the validity period.
    public var notBefore: Date
    /// End of the validity period.
    public var notAfter: Date
    /// The `uniformResourceIdentifier` subject alternative names, in order.
    public var uriSubjectAlternativeNames: [String]

    /// Reads a DER certificate with swift-certificates. Returns nil when it is not a readable
    /// X.509 certificate (or its subject alternative names do not decode).
    public init?(der: [UInt8]) {
        guard let certificate = try? Certificate(derEncoded: der) else { return nil }
        let alternativeNames: SubjectAlternativeNames?
        do { alternativeNames = try certificate.extensions.subjectAlternativeNames } catch { return nil }
        // An EC key as its uncompressed point 04‖x‖y, to compare with the JWK's x and y; any
        // other key as its DER SubjectPublicKeyInfo (it then never matches an EC JWK).
        if let key = P256.Signing.PublicKey(certificate.publicKey) {
            self.subjectPublicKey = Array(key.x963Representation)
        } else if let key = P384.Signing.PublicKey(certificate.publicKey) {
            self.subjectPublicKey = Array(key.x963Representation)
        } else if let key = P521.Signing.PublicKey(certificate.publicKey) {
            self.subjectPublicKey = Array(key.x963Representation)
        } else {
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(certificate.publicKey)) != nil else { return nil }
            self.subjectPublicKey = serializer.serializedBytes
        }
        self.notBefore = certificate.notValidBefore
        self.notAfter = certificate.notValidAfter
        self.uriSubjectAlternativeNames = (alternativeNames ?? SubjectAlternativeNames()).compactMap { name in
            if case .uniformResourceIdentifier(let uri) = name { return uri }
            return nil
        }
    }
}
