/// A Client System Identity: the 36-character UUID that names one ⟨app, device⟩ pair and is
/// bound to one P-256 key at registration (§1.1).
///
/// The value is kept in lowercase so that identity comparisons do not depend on how a client
/// spelled it; wire types keep the original text for rebuilding signed payloads.
public struct CsiGuid: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The lowercase UUID text, for example `7c5b8363-504b-4f83-9d01-caa4e28a156e`.
    public let rawValue: String

    /// Reads a csiGuid: 36 characters, hexadecimal digits with `-` at offsets 8, 13, 18 and 23
    /// (either case). Returns nil for anything else.
    public init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(36)
        for (offset, byte) in utf8.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                lowered.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): lowered.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): lowered.append(byte + 0x20)
            default: return nil
            }
        }
        rawValue = String(decoding: lowered, as: UTF8.self)
    }

    /// A csiGuid from 16 random bytes (a version-4 UUID), for `util/getGloballyUniqueIdentifier`.
    public init(randomBytes bytes: [UInt8]) {
        var uuid = Array(bytes.prefix(16))
        while uuid.count < 16 { uuid.append(0) }
        uuid[6] = (uuid[6] & 0x0F) | 0x40
        uuid[8] = (uuid[8] & 0x3F) | 0x80
        let hex = Hex.encode(uuid)
        let utf8 = Array(hex.utf8)
        var text = ""
        for (index, range) in [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].enumerated() {
            if index > 0 { text += "-" }
            text += String(decoding: utf8[range], as: UTF8.self)
        }
        rawValue = text
    }

    /// A fresh random csiGuid.
    public static func random(using generator: inout some RandomNumberGenerator) -> CsiGuid {
        CsiGuid(randomBytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    public static func < (lhs: CsiGuid, rhs: CsiGuid) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The lowercase UUID text.
    public var description: String { rawValue }
}
