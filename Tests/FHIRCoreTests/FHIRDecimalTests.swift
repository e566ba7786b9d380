import Foundation
import Testing
@testable import FHIRCore
import TestSupport

@Suite("FHIRDecimal")
struct FHIRDecimalTests {
    @Test(arguments: ["0", "-0", "-0.000", "1.50", "19.00", "1E+2", "1e-7", "-12.345E-06", "123456789012345678901234567890.000000000000000000001",
                      "0.0", "5e0"])
    func roundTripsTextExactly(_ text: String) throws {
        let decimal = try FHIRDecimal(fhirJSON: .number(text))
        #expect(decimal.text == text)
        #expect(decimal.fhirJSON == .number(text))
        #expect(decimal.description == text)
        #expect(FHIRDecimal(text: text)?.text == text)
    }

    @Test(arguments: ["", "01", "-01", "1.", ".5", "+1", "1e", "1e+", "-", "NaN", "Infinity", "0x10", " 1", "1 ", "1,5", "1.5.2", "1e5.0", "--1"])
    func rejectsInvalidText(_ text: String) {
        #expect(FHIRDecimal(text: text) == nil)
        #expect(throws: FHIRPrimitiveError.self) { try FHIRDecimal(fhirJSON: .number(text)) }
    }

    @Test func rejectsNonNumbers() {
        #expect(throws: FHIRPrimitiveError(type: "decimal", reason: "expected a number, found string")) {
            try FHIRDecimal(fhirJSON: .string("1.5"))
        }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRDecimal(fhirJSON: .null) }
    }

    @Test func equalityIsLexicalNumericEqualityIsNot() throws {
        let a = try #require(FHIRDecimal(text: "19.00"))
        let b = try #require(FHIRDecimal(text: "19.0"))
        #expect(a != b)
        #expect(a.hashValue != b.hashValue || a != b)
        #expect(a.isNumericallyEqual(to: b))
        for (lhs, rhs, equal) in [
            ("1.9E1", "190e-1", true), ("0", "-0.000", true), ("0e5", "0.0E-3", true), ("100", "1E+2", true),
            ("1.5", "1.50000", true), ("1.5", "1.51", false), ("-1", "1", false), ("1e-3", "0.001", true),
            ("12345678901234567890123456789012345678901", "1.2345678901234567890123456789012345678902E40", false),
        ] {
            let l = try #require(FHIRDecimal(text: lhs))
            let r = try #require(FHIRDecimal(text: rhs))
            #expect(l.isNumericallyEqual(to: r) == equal, "\(lhs) vs \(rhs)")
        }
    }

    @Test func numericViews() throws {
        let value = try #require(FHIRDecimal(text: "1.50"))
        #expect(value.decimal == Decimal(string: "1.5"))
        #expect(value.double == 1.5)
        #expect(try #require(FHIRDecimal(text: "1E+2")).decimal == 100)
        #expect(try #require(FHIRDecimal(text: "-1.5e-7")).double == -1.5e-7)
        #expect(try #require(FHIRDecimal(text: "1e200")).decimal.isNaN)
    }

    @Test func initializersFromNumbers() throws {
        #expect(FHIRDecimal(1.5).text == "1.5")
        #expect(FHIRDecimal(5.0).text == "5.0")
        #expect(FHIRDecimal(0.1).text == "0.1")
        #expect(FHIRDecimal(1e-5).double == 1e-5)
        #expect(FHIRDecimal(try #require(Decimal(string: "-0.001"))).text == "-0.001")
        #expect(FHIRDecimal(Decimal(42)).text == "42")
        for extreme in [Decimal.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastFiniteMagnitude, -Decimal.leastNonzeroMagnitude] {
            #expect(FHIRDecimal(exactly: extreme) != nil)
        }
        #expect(FHIRDecimal(Double.greatestFiniteMagnitude).text == "1.7976931348623157e+308")
        #expect(FHIRDecimal(5e-324).text == "5e-324")
        #expect(FHIRDecimal(exactly: Double.nan) == nil)
        #expect(FHIRDecimal(exactly: Double.infinity) == nil)
        #expect(FHIRDecimal(exactly: Decimal.nan) == nil)
        let fromFloat: FHIRDecimal = 2.25
        let fromInt: FHIRDecimal = -7
        #expect(fromFloat.text == "2.25")
        #expect(fromInt.text == "-7")
        var rng = SplitMix64(seed: 77)
        for _ in 0..<2_000 {
            let double = Double(bitPattern: rng.next())
            guard double.isFinite else { continue }
            let decimal = FHIRDecimal(double)
            #expect(decimal.double == double)
            #expect(DecimalLexicalForm.isValid(decimal.text))
        }
    }

    @Test func randomLexicalFormsRoundTripThroughJSON() throws {
        var generator = RandomJSON(seed: 0xDEC1)
        for _ in 0..<5_000 {
            let text = generator.number()
            let parsed = try JSONParser.parse("[\(text)]")
            guard case .array(let elements) = parsed, let element = elements.first else {
                Issue.record("not an array")
                continue
            }
            let decimal = try FHIRDecimal(fhirJSON: element)
            #expect(decimal.text == text)
            #expect(JSONWriter.string(.array([decimal.fhirJSON])) == "[\(text)]")
        }
    }

    @Test func randomRewritesAreNumericallyEqual() throws {
        var rng = SplitMix64(seed: 0x4E57)
        for _ in 0..<5_000 {
            let mantissa = rng.digits(rng.int(1...30), nonZeroFirst: true)
            let exponent = rng.int(-40...40)
            let sign = rng.chance(0.5) ? "-" : ""
            let plain = try #require(FHIRDecimal(text: "\(sign)\(mantissa)e\(exponent)"))
            let shifted: FHIRDecimal
            if mantissa.count > 1 {
                let head = mantissa.prefix(1)
                let tail = mantissa.dropFirst()
                shifted = try #require(FHIRDecimal(text: "\(sign)\(head).\(tail)E\(exponent + mantissa.count - 1)"))
            } else {
                shifted = try #require(FHIRDecimal(text: "\(sign)\(mantissa)0E\(exponent - 1)"))
            }
            let padded = try #require(FHIRDecimal(text: "\(sign)\(mantissa)000e\(exponent - 3)"))
            #expect(plain.isNumericallyEqual(to: shifted))
            #expect(plain.isNumericallyEqual(to: padded))
            let other = try #require(FHIRDecimal(text: "\(sign)\(mantissa)1e\(exponent - 1)"))
            #expect(!plain.isNumericallyEqual(to: other))
        }
    }
}
