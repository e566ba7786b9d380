import Testing
import FHIRCore

/// A code enum of the kind the generator writes, for the shared decoding code.
private enum TestStatus: FHIRCodeEnum {
    case final
    case unrecognized(String)

    init?(rawValue: String) {
        switch rawValue {
        case "final": self = .final
        default: return nil
        }
    }

    var rawValue: String {
        switch self {
        case .final: "final"
        case .unrecognized(let code): code
        }
    }

    static let allKnownCases: [Self] = [.final]
}

@Suite("Primitives decoded in place from the tape")
struct FHIRPrimitiveTapeTests {
    /// Every JSON kind, with escapes, non-ASCII text, strings past the small-string size and
    /// numbers in every decimal form.
    static let document = #"""
        [null, true, false, 0, -1.50, 1e3, 2.5E-7, "", "final", "fin\u0061l", "héllo 😀",
         "a string well past fifteen bytes", [], {}]
        """#

    /// Decoding straight from the tape gives what decoding the node's ``JSONValue`` gives: the
    /// same value or the same error.
    func agree<T: FHIRPrimitiveValue>(_ type: T.Type) throws {
        let tape = try JSONTape(Array(Self.document.utf8))
        var node = 1
        for _ in 0..<tape.count(0) {
            let viaValue = Result { () throws(FHIRPrimitiveError) -> T in try T(fhirJSON: tape.scalar(at: node)) }
            let inPlace = Result { () throws(FHIRPrimitiveError) -> T in try T(fhirJSON: tape, node: node) }
            #expect(inPlace == viaValue, "\(T.self) at node \(node)")
            node = Int(tape.nodes[node].end)
        }
    }

    @Test("strings, URIs, decimals, booleans and codes agree with decoding the JSON value")
    func agreeWithValues() throws {
        try agree(FHIRString.self)
        try agree(FHIRURI.self)
        try agree(FHIRDecimal.self)
        try agree(FHIRBool.self)
        try agree(TestStatus.self)
    }

    @Test("a decimal keeps its text as written, and codes keep unknown ones")
    func textKept() throws {
        let tape = try JSONTape(Array(#"[-1.50, 2.5E-7, "final", "amended"]"#.utf8))
        #expect(try FHIRDecimal(fhirJSON: tape, node: 1).text == "-1.50")
        #expect(try FHIRDecimal(fhirJSON: tape, node: 2).text == "2.5E-7")
        #expect(try TestStatus(fhirJSON: tape, node: 3) == .final)
        #expect(try TestStatus(fhirJSON: tape, node: 4) == .unrecognized("amended"))
    }
}
