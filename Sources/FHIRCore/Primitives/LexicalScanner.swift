/// A cursor over the UTF-8 bytes of a primitive's lexical form, used by the hand-written parsers of
/// the primitive types. Errors name the FHIR type and the problem, never the text.
struct LexicalScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    /// FHIR type name used in errors, for example `"dateTime"`.
    let type: String
    private(set) var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, type: String) {
        self.bytes = bytes
        self.type = type
    }

    /// Runs `body` with a scanner over the UTF-8 form of `text`.
    static func scan<Value>(
        _ text: String,
        type: String,
        _ body: (inout LexicalScanner) throws(FHIRPrimitiveError) -> Value
    ) throws(FHIRPrimitiveError) -> Value {
        var text = text
        let outcome = text.withUTF8 { buffer in
            Result { () throws(FHIRPrimitiveError) -> Value in
                var scanner = LexicalScanner(bytes: buffer, type: type)
                return try body(&scanner)
            }
        }
        return try outcome.get()
    }

    /// Runs `body` with a scanner over the bytes of the plain (escape-free) JSON string at `node`
    /// of a tape; nil, without running it, for any other node (the caller takes the general path).
    static func scan<Value>(
        _ tape: JSONTape,
        _ node: Int,
        type: String,
        _ body: (inout LexicalScanner) throws(FHIRPrimitiveError) -> Value
    ) throws(FHIRPrimitiveError) -> Value? {
        let item = tape.nodes[node]
        guard item.kind == .string else { return nil }
        let outcome = tape.bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(FHIRPrimitiveError) -> Value in
                let start = Int(item.start)
                var scanner = LexicalScanner(bytes: UnsafeBufferPointer(rebasing: buffer[start..<start + Int(item.length)]), type: type)
                return try body(&scanner)
            }
        }
        return try outcome.get()
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// The current byte, or `nil` at the end.
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Steps past `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Steps past the next byte (which must exist).
    mutating func advance() {
        index += 1
    }

    /// Reads exactly `count` ASCII digits as a number.
    mutating func digits(_ count: Int, _ what: String) throws(FHIRPrimitiveError) -> Int {
        var value = 0
        for _ in 0..<count {
            guard index < bytes.count else { throw fail("\(what) is incomplete") }
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw fail("\(what) must be \(count) digits") }
            value = value * 10 + Int(digit)
            index += 1
        }
        return value
    }

    /// Reads one or more ASCII digits and returns them as text.
    mutating func digitRun(_ what: String) throws(FHIRPrimitiveError) -> String {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        guard index > start else { throw fail("\(what) must have at least one digit") }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Requires `byte` next.
    mutating func expect(_ byte: UInt8, _ what: String) throws(FHIRPrimitiveError) {
        guard consume(byte) else {
            throw fail(isAtEnd ? "\(what) is missing" : "expected \(what)")
        }
    }

    /// Requires the end of the text.
    func expectEnd() throws(FHIRPrimitiveError) {
        guard isAtEnd else { throw fail("unexpected characters at the end") }
    }

    func fail(_ reason: String) -> FHIRPrimitiveError {
        FHIRPrimitiveError(type: type, reason: reason)
    }

    /// The error for a JSON value of the wrong kind.
    static func wrongKind(_ type: String, expected: String, found value: JSONValue) -> FHIRPrimitiveError {
        FHIRPrimitiveError(type: type, reason: "expected a \(expected), found \(value.kindName)")
    }
}
