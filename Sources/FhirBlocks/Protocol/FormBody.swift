import CommonSupport

/// An `application/x-www-form-urlencoded` body (the `vaca/*` endpoints), parsed from raw bytes.
///
/// The legacy `vaca/auth` client does not percent-encode the assertion, so its standard-base64
/// `+` would become a space under a standard decoder (§1.4, §1.10 item 6). Fields named in
/// `literalPlusFields` keep `+` as `+` in ``ProtocolMode/compat`` (reported as
/// ``CompatQuirk/unencodedFormBody``); strict mode decodes `+` as a space everywhere.
public struct FormBody: Sendable, Hashable {
    /// The fields in order (names unique unless parsed with `repeatsAllowed`).
    public private(set) var fields: [(name: String, value: String)]

    /// The value of a field.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Creates a form from decoded fields.
    public init(fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    public static func == (lhs: FormBody, rhs: FormBody) -> Bool {
        lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }

    /// Parses a body. A repeated field name, a bad `%` escape or invalid UTF-8 is
    /// `malformedRequest` (RFC 6749 §3.2: parameters must not repeat), unless `repeatsAllowed`
    /// (a FHIR search query, where a repeated parameter means AND).
    public static func parse(_ body: [UInt8], mode: ProtocolMode, literalPlusFields: Set<String> = [],
                             repeatsAllowed: Bool = false) throws(SMOACError) -> Accepted<FormBody> {
        var fields: [(name: String, value: String)] = []
        // Names seen, for the repeat check: a set, so a form of n fields costs O(n), not O(n²).
        var names = Set<String>()
        var quirks: [CompatQuirk] = []
        for piece in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let rawName: ArraySlice<UInt8>
            let rawValue: ArraySlice<UInt8>
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                rawName = piece[piece.startIndex..<equals]
                rawValue = piece[(equals + 1)...]
            } else {
                rawName = piece
                rawValue = []
            }
            let name = try decode(rawName, plusIsSpace: true, what: "a field name")
            let literalPlus = literalPlusFields.contains(name) && mode == .compat && rawValue.contains(UInt8(ascii: "+"))
            if literalPlus { quirks.append(.unencodedFormBody) }
            let value = try decode(rawValue, plusIsSpace: !literalPlus, what: "field \"\(name)\"")
            guard names.insert(name).inserted || repeatsAllowed else {
                throw .malformedRequest("form field \"\(name)\" appears more than once")
            }
            fields.append((name, value))
        }
        return Accepted(FormBody(fields: fields), quirks: quirks)
    }

    /// Encodes fields the strict way: every byte outside `A-Z a-z 0-9 - . _ *` percent-encoded,
    /// space as `+`.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            Self.encode(field.name, into: &out)
            out.append(UInt8(ascii: "="))
            Self.encode(field.value, into: &out)
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

    private static func decode(_ raw: ArraySlice<UInt8>, plusIsSpace: Bool, what: String) throws(SMOACError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard raw.endIndex - index >= 3,
                      let high = HexText.nibble(raw[index + 1]), let low = HexText.nibble(raw[index + 2]) else {
                    throw .malformedRequest("\(what) has a bad percent escape")
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte == UInt8(ascii: "+") && plusIsSpace ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw .malformedRequest("\(what) is not valid UTF-8")
        }
        return text
    }
}
