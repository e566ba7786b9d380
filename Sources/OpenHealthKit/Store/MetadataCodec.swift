import Foundation

/// Encodes HealthKit metadata (`[String: Any]`) to and from the typed JSON kept inside sealed
/// records, validates it as HealthKit does (String, number, Bool, Date or HKQuantity values),
/// and produces the equality keys the keyed metadata index stores.
enum MetadataCodec {
    /// One metadata value in the forms HealthKit allows.
    enum Value: Equatable, Sendable {
        case string(String)
        case bool(Bool)
        case integer(Int64)
        case double(Double)
        case date(Date)
        case quantity(Double, unit: String)

        init(_ any: Any, key: String) throws {
            switch any {
            case let value as String: self = .string(value)
            case let value as Bool: self = .bool(value)
            case let value as Int: self = .integer(Int64(value))
            case let value as Int64: self = .integer(value)
            case let value as Int32: self = .integer(Int64(value))
            case let value as UInt: self = .integer(Int64(clamping: value))
            case let value as Double:
                guard value.isFinite else { throw HKError(.errorInvalidArgument, "metadata value for \(key) is not finite") }
                self = .double(value)
            case let value as Float:
                guard value.isFinite else { throw HKError(.errorInvalidArgument, "metadata value for \(key) is not finite") }
                self = .double(Double(value))
            case let value as Date: self = .date(value)
            case let value as HKQuantity: self = .quantity(value.storedValue, unit: value.storedUnit.unitString)
            case let value as NSNumber:
                let type = String(cString: value.objCType)
                if type == "d" || type == "f" { self = .double(value.doubleValue) }
                else if type == "c" || type == "B" { self = .bool(value.boolValue) }
                else { self = .integer(value.int64Value) }
            default:
                throw HKError(.errorInvalidArgument, "metadata value for \(key) has unsupported type \(Swift.type(of: any))")
            }
        }

        var anyValue: Any {
            switch self {
            case .string(let value): return value
            case .bool(let value): return value
            case .integer(let value): return Int(value)
            case .double(let value): return value
            case .date(let value): return value
            case .quantity(let value, let unit): return HKQuantity(unit: (try? HKUnit.parse(unit)) ?? .count(), doubleValue: value)
            }
        }

        /// The text the keyed index hashes for equality lookups; numbers and Booleans share a
        /// form so `allowedValues: [true]` finds `1`, as NSNumber equality does in HealthKit.
        var indexForm: String? {
            switch self {
            case .string(let value): return "s:" + value
            case .bool(let value): return "n:" + (value ? "1" : "0")
            case .integer(let value): return "n:\(value)"
            case .double(let value):
                if value == value.rounded(), abs(value) < 9e15 { return "n:\(Int64(value))" }
                return "n:\(value)"
            case .date(let value): return "t:\(value.timeIntervalSinceReferenceDate)"
            case .quantity: return nil
            }
        }

        fileprivate var json: [String: Any] {
            switch self {
            case .string(let value): return ["s": value]
            case .bool(let value): return ["b": value]
            case .integer(let value): return ["i": value]
            case .double(let value): return ["d": value]
            case .date(let value): return ["t": value.timeIntervalSinceReferenceDate]
            case .quantity(let value, let unit): return ["q": value, "u": unit]
            }
        }

        fileprivate init?(json: [String: Any]) {
            if let value = json["s"] as? String { self = .string(value) }
            else if let value = json["b"] as? Bool { self = .bool(value) }
            else if let value = json["i"] as? NSNumber { self = .integer(value.int64Value) }
            else if let value = json["d"] as? NSNumber { self = .double(value.doubleValue) }
            else if let value = json["t"] as? NSNumber { self = .date(Date(timeIntervalSinceReferenceDate: value.doubleValue)) }
            else if let value = json["q"] as? NSNumber, let unit = json["u"] as? String { self = .quantity(value.doubleValue, unit: unit) }
            else { return nil }
        }
    }

    /// Validates and normalises metadata.
    static func values(_ metadata: [String: Any]) throws -> [String: Value] {
        var result: [String: Value] = [:]
        for (key, any) in metadata {
            guard !key.isEmpty else { throw HKError(.errorInvalidArgument, "metadata keys may not be empty") }
            result[key] = try Value(any, key: key)
        }
        if let version = result[HKMetadataKeySyncVersion] {
            switch version {
            case .integer, .bool: break
            case .double(let value) where Int64(exactly: value) != nil: break
            default: throw HKError(.errorInvalidArgument, "HKMetadataKeySyncVersion must be a whole number")
            }
            guard result[HKMetadataKeySyncIdentifier] != nil else {
                throw HKError(.errorInvalidArgument, "HKMetadataKeySyncVersion requires HKMetadataKeySyncIdentifier")
            }
        }
        if let identifier = result[HKMetadataKeySyncIdentifier] {
            guard case .string = identifier else { throw HKError(.errorInvalidArgument, "HKMetadataKeySyncIdentifier must be a string") }
            guard result[HKMetadataKeySyncVersion] != nil else {
                throw HKError(.errorInvalidArgument, "HKMetadataKeySyncIdentifier requires HKMetadataKeySyncVersion")
            }
        }
        return result
    }

    static func encode(_ values: [String: Value]) throws -> Data {
        if let plain = plainEncoding(values) { return plain }
        return try JSONSerialization.data(withJSONObject: values.mapValues { $0.json }, options: [.sortedKeys])
    }

    /// The bytes `JSONSerialization` writes for `encode(_:)` (keys sorted as it sorts them,
    /// its escapes), written directly for the metadata most samples have (an import's sync
    /// identifier and version): text and whole numbers under keys of ASCII letters, text
    /// without control characters. Nil for anything else, which goes through `JSONSerialization`.
    static func plainEncoding(_ values: [String: Value]) -> Data? {
        var entries: [(key: String, value: Value)] = []
        entries.reserveCapacity(values.count)
        var capacity = 16
        for (key, value) in values {
            guard withBytes(of: key, { $0.allSatisfy { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") } }) else { return nil }
            switch value {
            case .string(let text):
                if withBytes(of: text, { $0.contains { $0 < 0x20 } }) { return nil }
                capacity += key.utf8.count + text.utf8.count + 12
            case .integer: capacity += key.utf8.count + 32
            default: return nil
            }
            entries.append((key, value))
        }
        // JSONSerialization sorts keys ignoring case; keys that differ only by case go to it.
        entries.sort { foldedOrder($0.key, $1.key) < 0 }
        for index in entries.indices.dropFirst() where foldedOrder(entries[index].key, entries[index - 1].key) == 0 { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        func appendEscaped(_ text: String) {
            // Most text (an import's sync identifier) has nothing to escape: copied at once.
            let plain = withBytes(of: text) { text in
                guard !text.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/") }) else { return false }
                bytes.append(contentsOf: text)
                return true
            }
            guard !plain else { return }
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
                case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "{"))
        for (index, entry) in entries.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: entry.key.utf8)
            switch entry.value {
            case .string(let text):
                bytes.append(contentsOf: "\":{\"s\":\"".utf8)
                appendEscaped(text)
                bytes.append(contentsOf: "\"}".utf8)
            case .integer(let number):
                bytes.append(contentsOf: "\":{\"i\":".utf8)
                bytes.append(contentsOf: String(number).utf8)
                bytes.append(UInt8(ascii: "}"))
            default:
                return nil
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    /// The order of two keys of ASCII letters ignoring case (negative, zero or positive), as
    /// `lexicographicallyPrecedes` orders their lowercased bytes: a key before the longer keys it starts.
    private static func foldedOrder(_ left: String, _ right: String) -> Int {
        withBytes(of: left) { left in
            withBytes(of: right) { right in
                for index in 0..<min(left.count, right.count) where left[index] | 0x20 != right[index] | 0x20 {
                    return left[index] | 0x20 < right[index] | 0x20 ? -1 : 1
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
        }
    }

    /// `body` of the UTF-8 bytes of `text`, in place when the string is stored contiguously (a copy otherwise).
    private static func withBytes<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    static func decode(_ data: Data) throws -> [String: Value] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] else {
            throw HealthStoreError(.corruptDatabase, "sealed metadata is not a JSON object")
        }
        var result: [String: Value] = [:]
        for (key, json) in object {
            guard let value = Value(json: json) else { throw HealthStoreError(.corruptDatabase, "sealed metadata value is malformed") }
            result[key] = value
        }
        return result
    }

    /// The metadata HealthKit keeps on a deleted object: only the sync identifier and version.
    static func syncMetadata(_ values: [String: Value]) -> [String: Value] {
        values.filter { $0.key == HKMetadataKeySyncIdentifier || $0.key == HKMetadataKeySyncVersion }
    }

    static func syncVersion(_ values: [String: Value]) -> Int64? {
        switch values[HKMetadataKeySyncVersion] {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value)
        case .bool(let value): return value ? 1 : 0
        default: return nil
        }
    }

    /// The sync identifiers an Apple Health import gives records: this prefix and the lowercase
    /// hex of a SHA-256 digest of the record's content (AppleHealthImporter's `syncIdentifierPrefix`).
    static let importSyncPrefix = "apple-health-export:"
    /// The compact form's fixed part: 32 digest bytes and an 8-byte version.
    private static let compactSyncCount = 40

    /// Metadata whose sync identifier is an import's (``importSyncPrefix`` and 64 lowercase hex
    /// digits) and whose version is a whole number, in 40 bytes and the JSON of its other entries:
    /// the digest's bytes, the version (8 bytes, little-endian), then `encode` of the other entries
    /// (nothing when there are none). Nil for any other metadata, and when the other entries would
    /// not decode to themselves, so that ``expandCompactSync(_:)`` gives back exactly `encode(values)`.
    static func compactSync(_ values: [String: Value]) -> [UInt8]? {
        guard case .string(let identifier)? = values[HKMetadataKeySyncIdentifier],
              case .integer(let version)? = values[HKMetadataKeySyncVersion] else { return nil }
        let utf8 = identifier.utf8
        let prefix = importSyncPrefix.utf8
        guard utf8.count == prefix.count + 64, utf8.starts(with: prefix) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(compactSyncCount)
        var high: UInt8?
        for character in utf8.dropFirst(prefix.count) {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        withUnsafeBytes(of: UInt64(bitPattern: version).littleEndian) { bytes.append(contentsOf: $0) }
        guard values.count > 2 else { return bytes }
        var others = values
        others[HKMetadataKeySyncIdentifier] = nil
        others[HKMetadataKeySyncVersion] = nil
        // Plain JSON of text and whole numbers a Double holds exactly decodes to itself (as the
        // check below would find) without the check's JSONSerialization parse.
        if let plain = plainEncoding(others), others.values.allSatisfy({ value in
            if case .integer(let number) = value { return number.magnitude < 1 << 53 }
            return true
        }) {
            bytes.append(contentsOf: plain)
            return bytes
        }
        guard let json = try? encode(others), (try? decode(json)) == others else { return nil }
        bytes.append(contentsOf: json)
        return bytes
    }

    /// The metadata JSON (`encode`) of a compact form ``compactSync(_:)`` wrote.
    static func expandCompactSync(_ compact: Data) throws -> Data {
        let bytes = [UInt8](compact)
        guard bytes.count >= compactSyncCount else { throw HealthStoreError(.corruptDatabase, "sealed compact metadata is truncated") }
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var identifier = Array(importSyncPrefix.utf8)
        identifier.reserveCapacity(identifier.count + 64)
        for byte in bytes[0..<32] {
            identifier.append(digits[Int(byte >> 4)])
            identifier.append(digits[Int(byte & 0x0F)])
        }
        var version: UInt64 = 0
        for index in 0..<8 { version |= UInt64(bytes[32 + index]) << (8 * UInt64(index)) }
        var values: [String: Value] = [:]
        if bytes.count > compactSyncCount { values = try decode(Data(bytes[compactSyncCount...])) }
        values[HKMetadataKeySyncIdentifier] = .string(String(decoding: identifier, as: UTF8.self))
        values[HKMetadataKeySyncVersion] = .integer(Int64(bitPattern: version))
        return try encode(values)
    }

    static func syncIdentifier(_ values: [String: Value]) -> String? {
        if case .string(let value) = values[HKMetadataKeySyncIdentifier] { return value }
        return nil
    }
}
