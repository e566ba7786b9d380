import Testing
@testable import FHIRCore
import TestSupport

@Suite("FHIR integers")
struct FHIRIntegerTests {
    @Test func decodesIntegers() throws {
        #expect(try FHIRInteger(fhirJSON: .number("0")).integer == 0)
        #expect(try FHIRInteger(fhirJSON: .number("-42")).integer == -42)
        #expect(try FHIRInteger(fhirJSON: .number("2147483647")).integer == .max)
        #expect(try FHIRInteger(fhirJSON: .number("-2147483648")).integer == .min)
        #expect(try FHIRInteger(fhirJSON: .number("-0")).integer == 0)
        #expect(FHIRInteger(7).fhirJSON == .number("7"))
        let literal: FHIRInteger = -3
        #expect(literal.description == "-3")
    }

    @Test(arguments: ["2147483648", "-2147483649", "99999999999999999999999", "1.0", "1e2", "1E+0", "01", "-01", "", "-", "+1", " 1", "0x1", "1a"])
    func rejectsBadIntegers(_ text: String) {
        #expect(throws: FHIRPrimitiveError.self) { try FHIRInteger(fhirJSON: .number(text)) }
    }

    @Test func rejectsOtherKinds() {
        #expect(throws: FHIRPrimitiveError(type: "integer", reason: "expected a number, found string")) {
            try FHIRInteger(fhirJSON: .string("1"))
        }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRPositiveInteger(fhirJSON: .bool(true)) }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRUnsignedInteger(fhirJSON: .null) }
    }

    @Test func positiveIntegers() throws {
        #expect(try FHIRPositiveInteger(fhirJSON: .number("1")).integer == 1)
        #expect(try FHIRPositiveInteger(fhirJSON: .number("2147483647")).integer == .max)
        for text in ["0", "-0", "-1", "2147483648", "1.5"] {
            #expect(throws: FHIRPrimitiveError.self) { try FHIRPositiveInteger(fhirJSON: .number(text)) }
        }
        // init(exactly:) checks; FHIRModels' init(_:) and literals clamp to 1, and setting a value
        // under 1 is ignored.
        let zero: Int32 = 0
        let five: Int32 = 5
        #expect(FHIRPositiveInteger(exactly: zero) == nil)
        #expect(FHIRPositiveInteger(exactly: five)?.fhirJSON == .number("5"))
        #expect(FHIRPositiveInteger(zero).integer == 1)
        var changed = FHIRPositiveInteger(five)
        changed.integer = 0
        #expect(changed.integer == 5)
        let literal: FHIRPositiveInteger = 9
        #expect(literal.integer == 9)
    }

    @Test func unsignedIntegers() throws {
        #expect(try FHIRUnsignedInteger(fhirJSON: .number("0")).integer == 0)
        #expect(try FHIRUnsignedInteger(fhirJSON: .number("2147483647")).integer == .max)
        for text in ["-0", "-1", "2147483648", "1e0"] {
            #expect(throws: FHIRPrimitiveError.self) { try FHIRUnsignedInteger(fhirJSON: .number(text)) }
        }
        let minusOne: Int32 = -1
        let zero: Int32 = 0
        #expect(FHIRUnsignedInteger(exactly: minusOne) == nil)
        #expect(FHIRUnsignedInteger(exactly: zero)?.description == "0")
        #expect(FHIRUnsignedInteger(minusOne).integer == 0)
    }

    @Test func randomIntegersRoundTrip() throws {
        var rng = SplitMix64(seed: 0x1A7)
        for _ in 0..<5_000 {
            let value = Int32(truncatingIfNeeded: rng.next() >> UInt64(rng.int(0...63)))
            let decoded = try FHIRInteger(fhirJSON: .number(String(value)))
            #expect(decoded.integer == value)
            #expect(decoded.fhirJSON == .number(String(value)))
            let wide = Int64(truncatingIfNeeded: rng.next())
            if Int32(exactly: wide) == nil {
                #expect(throws: FHIRPrimitiveError.self) { try FHIRInteger(fhirJSON: .number(String(wide))) }
            }
        }
    }
}
