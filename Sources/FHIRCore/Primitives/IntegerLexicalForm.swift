/// Reading the JSON number text of FHIR `integer`, `positiveInt` and `unsignedInt` values:
/// `-?(0|[1-9][0-9]*)` within the 32-bit signed range (no fraction, no exponent).
enum IntegerLexicalForm {
    /// Decodes `value`, which must be a JSON number holding an integer in range.
    static func decode(_ value: JSONValue, type: String, allowsSign: Bool, minimum: Int32) throws(FHIRPrimitiveError) -> Int32 {
        guard case .number(let text) = value else {
            throw LexicalScanner.wrongKind(type, expected: "number", found: value)
        }
        let integer = try LexicalScanner.scan(text, type: type) { (scanner) throws(FHIRPrimitiveError) in
            try read(&scanner, allowsSign: allowsSign)
        }
        guard integer >= minimum else {
            throw FHIRPrimitiveError(type: type, reason: "value is below the minimum \(minimum)")
        }
        return integer
    }

    private static func read(_ scanner: inout LexicalScanner, allowsSign: Bool) throws(FHIRPrimitiveError) -> Int32 {
        let negative = scanner.consume(UInt8(ascii: "-"))
        if negative && !allowsSign { throw scanner.fail("value must not be negative") }
        guard let first = scanner.current, first &- UInt8(ascii: "0") < 10 else {
            throw scanner.fail("expected digits")
        }
        if first == UInt8(ascii: "0") {
            scanner.advance()
            if let next = scanner.current, next &- UInt8(ascii: "0") < 10 {
                throw scanner.fail("leading zeros are not allowed")
            }
        }
        var magnitude: Int64 = 0
        while let byte = scanner.current, byte &- UInt8(ascii: "0") < 10 {
            magnitude = magnitude * 10 + Int64(byte &- UInt8(ascii: "0"))
            guard magnitude <= Int64(Int32.max) + 1 else { throw scanner.fail("value is outside the 32-bit range") }
            scanner.advance()
        }
        if let byte = scanner.current {
            if byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e") {
                throw scanner.fail("value must be a whole number without fraction or exponent")
            }
            throw scanner.fail("unexpected characters after the digits")
        }
        let signed = negative ? -magnitude : magnitude
        guard let result = Int32(exactly: signed) else { throw scanner.fail("value is outside the 32-bit range") }
        return result
    }
}
