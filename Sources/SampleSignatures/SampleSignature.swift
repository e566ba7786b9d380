import CommonSupport
import Crypto
import SwiftASN1

/// A CMS (RFC 5652) SignedData over one sample, the value of `HKMetadataKeyDigitalSignature`
/// (base64 of the DER), in the profile Apple describes: SHA-256, ECDSA P-256, one signer,
/// optional items left out.
///
/// ```asn1
/// ContentInfo ::= SEQUENCE { contentType id-signedData (1.2.840.113549.1.7.2), content [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE {
///     version           INTEGER (3),                      -- 3: the signer is named by subjectKeyIdentifier
///     digestAlgorithms  SET OF AlgorithmIdentifier,       -- { id-sha256 (2.16.840.1.101.3.4.2.1) }
///     encapContentInfo  SEQUENCE { eContentType id-data (1.2.840.113549.1.7.1),
///                                  eContent [0] EXPLICIT OCTET STRING },  -- DER SampleSignatureContent
///     signerInfos       SET OF SignerInfo }               -- exactly one
/// SignerInfo ::= SEQUENCE {
///     version             INTEGER (3),
///     sid                 [0] IMPLICIT OCTET STRING,      -- subjectKeyIdentifier: DeviceKeyIdentifier
///     digestAlgorithm     AlgorithmIdentifier,            -- id-sha256
///     signatureAlgorithm  AlgorithmIdentifier,            -- ecdsa-with-SHA256 (1.2.840.10045.4.3.2)
///     signature           OCTET STRING }                  -- DER ECDSA-Sig-Value over the eContent octets
/// ```
///
/// With no signed attributes, RFC 5652 §5.4 has the signature cover the eContent octets
/// themselves. The reader accepts and ignores `certificates`, `crls` and unsigned attributes;
/// it refuses signed attributes, several signers and issuer-and-serial-number identifiers
/// (``SampleSignatureError/Kind/unsupportedStructure``).
///
/// This is a small codec on swift-asn1 rather than swift-certificates' CMS: that one is SPI
/// (`@_spi(CMS)`), identifies the signer through an X.509 certificate it expects inside the
/// SignedData (an optional item Apple leaves out), validates that certificate against trust
/// roots, and reports failures as text, where the store needs bare device keys and typed verdicts.
public struct SampleSignature: Sendable, Hashable {
    /// The signer's key identifier (`sid`).
    public let signer: DeviceKeyIdentifier
    /// The signed content (the eContent octets, a DER ``SampleSignatureContent``).
    public let content: [UInt8]
    /// The DER ECDSA signature.
    public let signature: [UInt8]
    let digestAlgorithm: ASN1ObjectIdentifier
    let signatureAlgorithm: ASN1ObjectIdentifier

    /// Signs `content` with a device key.
    /// - Throws: ``SampleSignatureError/Kind/unencodableContent`` when the content cannot be encoded.
    public static func sign(_ content: SampleSignatureContent, with key: P256.Signing.PrivateKey) throws(SampleSignatureError) -> SampleSignature {
        let bytes = try content.derEncoded()
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try key.signature(for: bytes)
        } catch {
            throw SampleSignatureError(.unencodableContent, "the content could not be signed")
        }
        return SampleSignature(signer: DeviceKeyIdentifier(key.publicKey), content: bytes, signature: Array(signature.derRepresentation),
                               digestAlgorithm: .idSHA256, signatureAlgorithm: .idECDSAWithSHA256)
    }

    /// The DER ContentInfo.
    public func derEncoded() -> [UInt8] {
        var serializer = DER.Serializer()
        // Only in-memory serialization of values this type built: nothing here can fail.
        try? serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(ASN1ObjectIdentifier.idSignedData)
            try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    try coder.serialize(3)
                    try coder.appendConstructedNode(identifier: .set) { coder in try Self.serialize(digestAlgorithm, into: &coder) }
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        try coder.serialize(ASN1ObjectIdentifier.idData)
                        try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(content)), explicitlyTaggedWithTagNumber: 0,
                                            tagClass: .contextSpecific)
                    }
                    try coder.appendConstructedNode(identifier: .set) { coder in
                        try coder.appendConstructedNode(identifier: .sequence) { coder in
                            try coder.serialize(3)
                            try ASN1OctetString(contentBytes: ArraySlice(signer.bytes)).serialize(into: &coder, withIdentifier: Self.subjectKeyIdentifierTag)
                            try Self.serialize(digestAlgorithm, into: &coder)
                            try Self.serialize(signatureAlgorithm, into: &coder)
                            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(signature)))
                        }
                    }
                }
            }
        }
        return serializer.serializedBytes
    }

    /// The metadata value: base64 of the DER.
    public var base64Encoded: String { Base64URL.encodeStandard(derEncoded()) }

    /// Reads a metadata value (base64 of the DER).
    public init(base64Encoded text: String) throws(SampleSignatureError) {
        guard let bytes = Base64URL.decodeStandard(text) else { throw SampleSignatureError(.notBase64, "the signature is not base64 text") }
        try self.init(derEncoded: bytes)
    }

    /// Reads the DER ContentInfo strictly.
    public init(derEncoded bytes: [UInt8]) throws(SampleSignatureError) {
        do {
            self = try Self.decode(DER.parse(bytes))
        } catch let error as SampleSignatureError {
            throw error
        } catch {
            throw SampleSignatureError(.malformedSignedData, "the signature is not a DER CMS SignedData")
        }
    }

    private init(signer: DeviceKeyIdentifier, content: [UInt8], signature: [UInt8], digestAlgorithm: ASN1ObjectIdentifier,
                 signatureAlgorithm: ASN1ObjectIdentifier) {
        self.signer = signer
        self.content = content
        self.signature = signature
        self.digestAlgorithm = digestAlgorithm
        self.signatureAlgorithm = signatureAlgorithm
    }

    /// Whether the signature verifies over the content with `key`, with the algorithms this
    /// profile allows (checked by the caller first).
    func isValid(with key: P256.Signing.PublicKey) -> Bool {
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
        return key.isValidSignature(signature, for: content)
    }

    // MARK: DER

    static let subjectKeyIdentifierTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    private static let signedAttributesTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    private static let unsignedAttributesTag = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)
    private static let certificatesTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    private static let crlsTag = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    private static func malformed(_ message: String) -> SampleSignatureError { SampleSignatureError(.malformedSignedData, message) }
    private static func unsupported(_ message: String) -> SampleSignatureError { SampleSignatureError(.unsupportedStructure, message) }

    private static func serialize(_ algorithm: ASN1ObjectIdentifier, into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in try coder.serialize(algorithm) }
    }

    private static func decode(_ root: ASN1Node) throws -> SampleSignature {
        try DER.sequence(root, identifier: .sequence) { nodes in
            guard try ASN1ObjectIdentifier(derEncoded: &nodes) == .idSignedData else { throw malformed("the ContentInfo does not hold a SignedData") }
            return try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                try DER.sequence(node, identifier: .sequence) { nodes in try decodeSignedData(&nodes) }
            }
        }
    }

    private static func decodeSignedData(_ nodes: inout ASN1NodeCollection.Iterator) throws -> SampleSignature {
        guard try Int(derEncoded: &nodes) == 3 else { throw malformed("the SignedData version is not 3") }
        guard let digestSet = nodes.next() else { throw malformed("the SignedData has no digest algorithms") }
        let digests = try DER.set(digestSet, identifier: .set) { nodes in
            var algorithms: [ASN1ObjectIdentifier] = []
            while let node = nodes.next() { algorithms.append(try algorithm(node)) }
            return algorithms
        }
        guard let encapsulated = nodes.next() else { throw malformed("the SignedData has no encapsulated content") }
        let content = try DER.sequence(encapsulated, identifier: .sequence) { nodes -> [UInt8] in
            guard try ASN1ObjectIdentifier(derEncoded: &nodes) == .idData else { throw unsupported("the content type is not id-data") }
            guard let tagged = nodes.next() else { throw unsupported("the content is detached") }
            return try DER.explicitlyTagged(tagged, tagNumber: 0, tagClass: .contextSpecific) { node in
                Array(try ASN1OctetString(derEncoded: node).bytes)
            }
        }
        var next = nodes.next()
        if let node = next, node.identifier == certificatesTag { next = nodes.next() }
        if let node = next, node.identifier == crlsTag { next = nodes.next() }
        guard let signerSet = next else { throw malformed("the SignedData has no signer infos") }
        let signers = try DER.set(signerSet, identifier: .set) { nodes in
            var signers: [SampleSignature] = []
            while let node = nodes.next() { signers.append(try decodeSignerInfo(node, content: content)) }
            return signers
        }
        guard signers.count == 1, let signer = signers.first else { throw unsupported("the SignedData does not have exactly one signer") }
        guard digests.contains(signer.digestAlgorithm) else { throw malformed("the signer's digest algorithm is not listed in the SignedData") }
        return signer
    }

    private static func decodeSignerInfo(_ node: ASN1Node, content: [UInt8]) throws -> SampleSignature {
        try DER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(derEncoded: &nodes)
            guard let sid = nodes.next() else { throw malformed("the signer info has no signer identifier") }
            guard sid.identifier == subjectKeyIdentifierTag else {
                throw unsupported("the signer is not identified by a subject key identifier")
            }
            guard version == 3 else { throw malformed("the signer info version is not 3") }
            let keyIdentifier = try ASN1OctetString(derEncoded: sid, withIdentifier: subjectKeyIdentifierTag)
            guard let digestNode = nodes.next() else { throw malformed("the signer info has no digest algorithm") }
            let digest = try algorithm(digestNode)
            guard let signatureAlgorithmNode = nodes.next() else { throw malformed("the signer info has no signature algorithm") }
            if signatureAlgorithmNode.identifier == signedAttributesTag { throw unsupported("the signer info has signed attributes") }
            let signatureAlgorithm = try algorithm(signatureAlgorithmNode)
            guard let signatureNode = nodes.next() else { throw malformed("the signer info has no signature") }
            let signature = try ASN1OctetString(derEncoded: signatureNode)
            if let node = nodes.next(), node.identifier != unsignedAttributesTag { throw malformed("unexpected field in the signer info") }
            return SampleSignature(signer: DeviceKeyIdentifier(bytes: Array(keyIdentifier.bytes)), content: content,
                                   signature: Array(signature.bytes), digestAlgorithm: digest, signatureAlgorithm: signatureAlgorithm)
        }
    }

    /// An AlgorithmIdentifier's OID; parameters may be absent or NULL.
    private static func algorithm(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        try DER.sequence(node, identifier: .sequence) { nodes in
            let oid = try ASN1ObjectIdentifier(derEncoded: &nodes)
            if let parameters = nodes.next() { _ = try ASN1Null(derEncoded: parameters) }
            return oid
        }
    }
}

extension ASN1ObjectIdentifier {
    static let idSignedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let idData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    static let idSHA256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let idECDSAWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10_045, 4, 3, 2]
}
