import ExactJSON
import Foundation
import Testing

/// `JSONValue` through Foundation's `JSONDecoder`/`JSONEncoder` (the `Codable` path models use).
@Suite struct JSONValueCodableTests {
    @Test func numbersBeyondDecimalsRangeStillDecode() throws {
        let json = #"{"small":1.0E-245,"large":-1.0E+245,"plain":1.5,"whole":7}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        guard case .object(let object) = value else {
            Issue.record("expected an object")
            return
        }
        let numbers = Dictionary(uniqueKeysWithValues: object.members.map { ($0.key, $0.value) })
        #expect(numbers["small"] == .number("1e-245") && numbers["large"] == .number("-1e+245"))
        #expect(numbers["plain"] == .number("1.5") && numbers["whole"] == .number("7"))
        let again = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(value))
        #expect(again == value)
    }
}
