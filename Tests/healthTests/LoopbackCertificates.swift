import Crypto
import Foundation
import NIOSSL
import X509

/// A certificate authority made for one test run and a server certificate it issued for
/// 127.0.0.1 and localhost, written as PEM files for `health serve --tls-cert/--tls-key` and
/// the clients' `--ca-cert` / `SSL_CERT_FILE`. Nothing private is committed: the keys are made
/// here and removed with the test's folder.
struct LoopbackCertificates: Sendable {
    /// The authority's certificate (PEM file).
    let authorityFile: String
    /// The server's certificate (PEM file).
    let certificateFile: String
    /// The server's private key (PEM file).
    let keyFile: String
    /// The authority, for clients made in the test process.
    let authority: NIOSSLCertificate

    /// Makes P-256 keys, a self-signed authority and a server certificate valid for a day, in `folder`.
    static func make(in folder: URL) throws -> LoopbackCertificates {
        let now = Date()
        let authorityKey = P256.Signing.PrivateKey()
        let authorityName = try DistinguishedName { CommonName("OpenHealthKit health serve test authority") }
        func certificate(key: P256.Signing.PrivateKey, subject: DistinguishedName, extensions: Certificate.Extensions) throws -> Certificate {
            try Certificate(version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PrivateKey(key).publicKey,
                            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
                            issuer: authorityName, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
                            issuerPrivateKey: Certificate.PrivateKey(authorityKey))
        }
        let authority = try certificate(key: authorityKey, subject: authorityName, extensions: try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
        })
        let serverKey = P256.Signing.PrivateKey()
        let server = try certificate(key: serverKey, subject: try DistinguishedName { CommonName("localhost") }, extensions: try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([.ipAddress(.init(contentBytes: [127, 0, 0, 1])), .dnsName("localhost")])
        })
        let authorityPEM = try authority.serializeAsPEM().pemString
        let files = (authority: folder.appendingPathComponent("ca.pem"), certificate: folder.appendingPathComponent("server.pem"),
                     key: folder.appendingPathComponent("server-key.pem"))
        try Data(authorityPEM.utf8).write(to: files.authority)
        try Data(try server.serializeAsPEM().pemString.utf8).write(to: files.certificate)
        try Data(serverKey.pemRepresentation.utf8).write(to: files.key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: files.key.path)
        return LoopbackCertificates(authorityFile: files.authority.path, certificateFile: files.certificate.path, keyFile: files.key.path,
                                    authority: try NIOSSLCertificate(bytes: Array(authorityPEM.utf8), format: .pem))
    }
}
