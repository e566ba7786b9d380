import ExactJSON
import Testing
import TestSupport

@Suite("JSONTape.byteRange(of:)")
struct JSONTapeByteRangeTests {
    @Test("each value's range is its exact JSON: it re-parses to the same tree, pretty or compact, for random documents")
    func everyNodeRoundTrips() throws {
        var random = RandomJSON(seed: 0xB17E)
        for round in 0..<300 {
            let document = random.document()
            let bytes = JSONWriter.serialize(document, style: round.isMultiple(of: 2) ? .compact : .pretty)
            let tape = try JSONTape(bytes)
            #expect(tape.byteRange(of: 0) == 0..<bytes.count)
            var node = 0
            while node < tape.nodes.count {
                let range = tape.byteRange(of: node)
                let slice = Array(bytes[range])
                #expect(try JSONTape(slice).value(at: 0) == tape.value(at: node))
                node += 1
            }
        }
    }

    @Test("whitespace around and inside containers: the range starts and ends on the value's own bytes")
    func whitespace() throws {
        let text = " \n{ \"a\" : [ 1 , { } , [ ] , \"x\\\"y\" ] ,\n \"b\" : { \"c\" : null }\t}\n "
        let tape = try JSONTape(Array(text.utf8))
        func slice(_ node: Int) -> String { String(decoding: tape.bytes[tape.byteRange(of: node)], as: UTF8.self) }
        #expect(slice(0) == "{ \"a\" : [ 1 , { } , [ ] , \"x\\\"y\" ] ,\n \"b\" : { \"c\" : null }\t}")
        #expect(slice(2) == "[ 1 , { } , [ ] , \"x\\\"y\" ]")
        #expect(slice(4) == "{ }")
        #expect(slice(5) == "[ ]")
        #expect(slice(6) == "\"x\\\"y\"")
        #expect(slice(8) == "{ \"c\" : null }")
    }
}
