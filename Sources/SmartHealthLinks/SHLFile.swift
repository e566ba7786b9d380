import CommonSupport
import Crypto
import ExactJSON
import Foundation

/// A file of a link after decryption.
public struct SHLDecryptedFile: Sendable, Hashable {
    /// The JWE's `cty` header, when it has one (the manifest's `contentType` is authoritative).
    public let contentType: String?
    /// The file's bytes, inflated when the JWE said `zip: DEF`.
    public let content: [UInt8]
}

/// The encrypted files of SMART Health Links: JWE compact serialization (RFC 7516) with
/// `alg: dir` and `enc: A256GCM`, the link's key as the content key, `cty` naming the content and
/// optionally `zip: DEF` (raw DEFLATE).
///
/// Written by hand because none of the project's packages writes JWE; swift-crypto does the AES-GCM.
/// Every encryption draws a fresh 96-bit IV, so a long-term link's key can encrypt its files again.
public enum SHLFile {
    /// The largest file read, encrypted or inflated (16 MiB).
    public static let defaultMaximumSize = 16 << 20

    /// Encrypts a file for a link.
    /// - Parameters:
    ///   - content: the file's bytes.
    ///   - contentType: its media type (`application/fhir+json`, `application/smart-health-card`…),
    ///     written as the `cty` header.
    ///   - key: the link's 32-byte key.
    ///   - compress: `true` to deflate the content first (`zip: DEF`).
    /// - Returns: the JWE compact serialization.
    /// - Throws: ``SHLinkError/badKey`` for a key that is not 32 bytes.
    public static func encrypt(_ content: [UInt8], contentType: String, key: [UInt8], compress: Bool = false) throws(SHLinkError) -> String {
        guard key.count == SHLink.keyByteCount else { throw .badKey }
        var header = [JSONMember("alg", .string("dir")), JSONMember("enc", .string("A256GCM")), JSONMember("cty", .string(contentType))]
        if compress { header.append(JSONMember("zip", .string("DEF"))) }
        let protectedHeader = Base64URL.encode(JSONWriter.serialize(.object(members: header)))
        let plaintext = compress ? RawDeflate.deflate(content) : content
        do {
            let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(),
                                       authenticating: Array(protectedHeader.utf8))
            return [protectedHeader, "", Base64URL.encode(Array(box.nonce)), Base64URL.encode(box.ciphertext), Base64URL.encode(box.tag)]
                .joined(separator: ".")
        } catch {
            // AES-GCM with a 32-byte key and a fresh 12-byte nonce cannot fail.
            throw .badKey
        }
    }

    /// Decrypts a file of a link.
    /// - Parameters:
    ///   - jwe: the JWE compact serialization, as the server sent it.
    ///   - key: the link's 32-byte key.
    ///   - maximumSize: the most bytes accepted, encrypted or inflated.
    /// - Returns: the content and its `cty`.
    /// - Throws: ``SHLinkError``: not a JWE, another algorithm, a critical header, a damaged or
    ///   foreign file, or compressed content beyond `maximumSize`.
    public static func decrypt(_ jwe: String, key: [UInt8], maximumSize: Int = defaultMaximumSize) throws(SHLinkError) -> SHLDecryptedFile {
        guard key.count == SHLink.keyByteCount else { throw .badKey }
        let text = jwe.trimmingCharacters(in: .whitespacesAndNewlines)
        // Base64url grows by 4/3; the header and the other parts are small.
        guard text.utf8.count <= maximumSize / 3 * 4 + 4_096 else { throw .badFile("it is larger than \(maximumSize) bytes") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5 else {
            throw .badFile("a JWE in compact form has 5 parts separated by dots; this has \(parts.count)")
        }
        func decode(_ part: Substring, _ name: String) throws(SHLinkError) -> [UInt8] {
            guard let bytes = try? Base64URL.decode(String(part)) else { throw .badFile("its \(name) is not base64url") }
            return bytes
        }
        let headerBytes = try decode(parts[0], "header")
        let parsedHeader: JSONValue
        do {
            parsedHeader = try JSONParser.parse(headerBytes, maximumDepth: SHLink.maximumJSONDepth, allowsByteOrderMark: false)
        } catch {
            throw .badFile("its header is not JSON")
        }
        guard let header = parsedHeader.objectValue else { throw .badFile("its header is not a JSON object") }
        let alg = header["alg"]?.stringValue, enc = header["enc"]?.stringValue
        guard alg == "dir", enc == "A256GCM" else {
            throw .unsupportedAlgorithm(alg: alg ?? "(no alg)", enc: enc ?? "(no enc)")
        }
        if header["crit"] != nil { throw .badFile("its header has critical extensions this program does not know") }
        let compressed: Bool
        switch header["zip"] {
        case nil: compressed = false
        case .some(.string("DEF")): compressed = true
        case .some(let other): throw .badFile("it is compressed with \(other.stringValue ?? other.kindName), not DEF")
        }
        guard parts[1].isEmpty else { throw .badFile("direct encryption has no encrypted key, but this file has one") }
        let iv = try decode(parts[2], "IV"), ciphertext = try decode(parts[3], "ciphertext"), tag = try decode(parts[4], "tag")
        guard iv.count == 12 else { throw .badFile("its IV is \(iv.count) bytes, not 12") }
        guard tag.count == 16 else { throw .badFile("its tag is \(tag.count) bytes, not 16") }
        let plaintext: [UInt8]
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag)
            plaintext = Array(try AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: Array(parts[0].utf8)))
        } catch {
            throw .doesNotDecrypt
        }
        var content = plaintext
        if compressed {
            do {
                content = try RawDeflate.inflate(plaintext, limit: maximumSize)
            } catch {
                switch error {
                case .tooLarge(let limit): throw .badCompression("would be larger than \(limit) bytes")
                case .corrupt, .trailingData: throw .badCompression("is not valid DEFLATE data")
                case .truncated: throw .badCompression("ends too soon")
                case .zlibUnavailable: throw .badCompression("cannot be read: zlib is unavailable")
                }
            }
        }
        return SHLDecryptedFile(contentType: header["cty"]?.stringValue, content: content)
    }
}
