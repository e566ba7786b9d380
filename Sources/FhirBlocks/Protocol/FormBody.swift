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
        for piece in FormURLEncoding.pieces(body) {
            let name = try decode(piece.name, plusIsSpace: true, what: "a field name")
            let literalPlus = literalPlusFields.contains(name) && mode == .compat && piece.value.contains(UInt8(ascii: "+"))
            if literalPlus { quirks.append(.unencodedFormBody) }
            let value = try decode(piece.value, plusIsSpace: !literalPlus, what: "field \"\(name)\"")
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
        FormURLEncoding.encode(fields)
    }

    private static func decode(_ raw: ArraySlice<UInt8>, plusIsSpace: Bool, what: String) throws(SMOACError) -> String {
        do throws(FormURLEncoding.Failure) {
            return try FormURLEncoding.decode(raw, plusIsSpace: plusIsSpace)
        } catch .badPercentEscape {
            throw .malformedRequest("\(what) has a bad percent escape")
        } catch {
            throw .malformedRequest("\(what) is not valid UTF-8")
        }
    }
}
