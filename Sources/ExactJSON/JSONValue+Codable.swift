import Foundation

/// `Codable` for JSON trees, so FHIR models work with any `Encoder`/`Decoder` (JSONEncoder,
/// PropertyListEncoder…). With Foundation's JSONDecoder numbers arrive as binary values, so a
/// decimal's lexical form (`19.00`) cannot survive that path; use `init(fhirJSON:)` for lossless
/// decoding.
extension JSONValue: Codable {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [JSONMember] = []
            for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                members.append(JSONMember(key: key.stringValue, value: try keyed.decode(JSONValue.self, forKey: key)))
            }
            self = .object(JSONObject(members: members))
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let string = try? single.decode(String.self) {
            self = .string(string)
        } else if let integer = try? single.decode(Int64.self) {
            self = .number(String(integer))
        } else if let decimal = try? single.decode(Decimal.self) {
            self = .number("\(decimal)")
        } else {
            // Beyond Decimal's exponent range (1.0E-245): a Double still holds it.
            let double = try single.decode(Double.self)
            guard double.isFinite else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription: "a number JSON cannot write")
            }
            self = .number(String(double))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try container.encode(integer)
            } else if let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                try container.encode(decimal)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let object):
            var container = encoder.container(keyedBy: AnyKey.self)
            for member in object.members {
                try container.encode(member.value, forKey: AnyKey(stringValue: member.key))
            }
        }
    }
}
