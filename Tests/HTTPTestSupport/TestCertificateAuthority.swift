import Crypto
import Foundation
import NIOSSL
import X509

/// A certificate authority made for one test run, and a server certificate it issued for the
/// IP address 127.0.0.1.
public struct TestCertificateAuthority: Sendable {
    /// The authority's certificate, which the client under test is told to trust.
    public let root: NIOSSLCertificate
    /// The same, as PEM text (what a file `SSL_CERT_FILE` names holds).
    public let rootPEM: String
    /// The server's certificate.
    public let serverCertificate: NIOSSLCertificate
    /// The server's private key.
    public let serverKey: NIOSSLPrivateKey

    /// Generates P-256 keys, a self-signed authority, and a server certificate for 127.0.0.1
    /// valid for a day.
    public static func make() throws -> TestCertificateAuthority {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("OpenHealthKit test authority") }
        let now = Date()
        let rootCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PrivateKey(rootKey).publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey))

        let serverKey = P256.Signing.PrivateKey()
        let serverName = try DistinguishedName { CommonName("127.0.0.1") }
        let serverCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PrivateKey(serverKey).publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName,
            subject: serverName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(.init(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey))

        let rootPEM = try rootCertificate.serializeAsPEM().pemString
        return TestCertificateAuthority(
            root: try NIOSSLCertificate(bytes: Array(rootPEM.utf8), format: .pem), rootPEM: rootPEM,
            serverCertificate: try NIOSSLCertificate(bytes: Array(try serverCertificate.serializeAsPEM().pemString.utf8),
                                                     format: .pem),
            serverKey: try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem))
    }
}
