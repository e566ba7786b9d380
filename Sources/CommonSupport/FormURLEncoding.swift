/// `application/x-www-form-urlencoded` fields (the WHATWG URL standard's form encoding, as OAuth
/// token requests and query strings use it), from and to bytes. Internal to the package (the
/// FhirBlocks server's `FormBody`, the SMART client's queries and redirects).
package enum FormURLEncoding {
    /// Why a form was refused.
    package enum Failure: Error, Sendable, Equatable {
        /// A `%` not followed by two hex digits.
        case badPercentEscape
        /// The decoded bytes are not UTF-8.
        case invalidUTF8
        /// A field name that appears more than once.
        case repeatedName(String)
    }

    /// The `name=value` pieces of a body, still encoded, in order (empty pieces left out; a piece
    /// without `=` is a name with an empty value).
    package static func pieces(_ body: [UInt8]) -> [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] {
        body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { piece in
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                return (piece[piece.startIndex..<equals], piece[(equals + 1)...])
            }
            return (piece, [])
        }
    }

    /// Decodes the fields of a body, `+` as a space; a repeated name is refused unless
    /// `repeatsAllowed`.
    /// - Throws: `badPercentEscape`, `invalidUTF8` or `repeatedName`.
    package static func fields(_ body: [UInt8], repeatsAllowed: Bool = false) throws(Failure) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        // Names seen, for the repeat check: a set, so a form of n fields costs O(n), not O(n²).
        var names = Set<String>()
        for piece in pieces(body) {
            let name = try decode(piece.name, plusIsSpace: true)
            let value = try decode(piece.value, plusIsSpace: true)
            guard names.insert(name).inserted || repeatsAllowed else { throw .repeatedName(name) }
            fields.append((name, value))
        }
        return fields
    }

    /// Encodes fields the strict way: every byte outside `A-Z a-z 0-9 - . _ *` percent-encoded,
    /// space as `+`.
    package static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            encode(field.name, into: &out)
            out.append(UInt8(ascii: "="))
            encode(field.value, into: &out)
        }
        return out
    }

    private static func encode(_ text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
    }

    /// Percent-encodes a URL query name or value, or a URL user, password or path segment, as
    /// RFC 3986 §2.3 says: the unreserved characters `A-Z a-z 0-9 - . _ ~` kept, every other UTF-8
    /// byte (a space, `+`, and each byte of a non-ASCII letter) written as `%XX` in upper case.
    /// `decode(_:plusIsSpace:)` reads the result back.
    /// - Parameter text: The text to encode.
    /// - Returns: Text of unreserved ASCII characters and `%XX` escapes only.
    package static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes one name or value: `%XX` escapes, and `+` as a space when `plusIsSpace`.
    /// - Throws: `badPercentEscape` or `invalidUTF8`.
    package static func decode(_ raw: ArraySlice<UInt8>, plusIsSpace: Bool) throws(Failure) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard raw.endIndex - index >= 3,
                      let high = HexText.nibble(raw[index + 1]), let low = HexText.nibble(raw[index + 2]) else {
                    throw .badPercentEscape
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte == UInt8(ascii: "+") && plusIsSpace ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }
}
