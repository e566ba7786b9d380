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
        // A native string's bytes are read in place (as in importDigest), not through the generic walk over a Substring's view.
        let contiguous = utf8.withContiguousStorageIfAvailable { bytes in
            lowercaseHexBytes(UnsafeBufferPointer(rebasing: bytes[prefix.count...]), capacity: compactSyncCount)
        }
        guard var bytes = contiguous ?? lowercaseHexBytes(utf8.dropFirst(prefix.count), capacity: compactSyncCount) else { return nil }
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

// MARK: - The binary form (flag 32 in a sealed record)

extension MetadataCodec {
    /// The well-known metadata keys, each stored as one byte: its position here plus one.
    /// Stored data: this table is only ever appended to (a key's code never changes and is never
    /// reused); `StoredLayoutTests` pins it. Keys not here are stored as their UTF-8 text.
    static let wellKnownKeys: [String] = [
        "HKMetadataKeySyncIdentifier", "HKMetadataKeySyncVersion", "HKMetadataKeyHeartRateMotionContext", "HKTimeZone", "HKWasUserEntered",
        "HKExternalUUID", "HKMetadataKeyDevicePlacementSide", "HKMetadataKeyAppleDeviceCalibrated", "HKIndoorWorkout", "HKAverageMETs",
        "HKDeviceSerialNumber", "HKBodyTemperatureSensorLocation", "HKHeartRateSensorLocation", "HKMetadataKeyUserMotionContext",
        "HKMetadataKeySessionEstimate", "HKMetadataKeyHeartRateRecoveryTestType", "HKMetadataKeyHeartRateRecoveryActivityType",
        "HKMetadataKeyHeartRateRecoveryActivityDuration", "HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate", "HKFoodType",
        "HKUDIDeviceIdentifier", "HKUDIProductionIdentifier", "HKDigitalSignature", "HKDeviceName", "HKDeviceManufacturerName",
        "HKWasTakenInLab", "HKReferenceRangeLowerLimit", "HKReferenceRangeUpperLimit", "HKWorkoutBrandName", "HKGroupFitness",
        "HKMetadataKeyAppleFitnessPlusSession", "HKCoachedWorkout", "HKWeatherCondition", "HKWeatherTemperature", "HKWeatherHumidity",
        "HKSexualActivityProtectionUsed", "HKMenstrualCycleStart", "HKLapLength", "HKSwimmingLocationType", "HKSwimmingStrokeStyle",
        "HKInsulinDeliveryReason", "HKBloodGlucoseMealTime", "HKVO2MaxTestType", "HKAverageSpeed", "HKMaximumSpeed", "HKAlpineSlopeGrade",
        "HKElevationAscended", "HKElevationDescended", "HKFitnessMachineDuration", "HKIndoorBikeDistance", "HKCrossTrainerDistance",
        "HKHeartRateEventThreshold", "HKMetadataKeyAudioExposureLevel", "HKMetadataKeyAudioExposureDuration",
        "HKMetadataKeyAppleECGAlgorithmVersion", "HKMetadataKeyBarometricPressure", "HKVO2MaxValue", "HKLowCardioFitnessEventThreshold",
        "HKDateOfEarliestDataUsedForEstimate", "HKAlgorithmVersion", "HKSWOLFScore", "HKMetadataKeyQuantityClampedToLowerBound",
        "HKMetadataKeyQuantityClampedToUpperBound", "HKMetadataKeyGlassesPrescriptionDescription", "HKMetadataKeyWaterSalinity",
        "HKMetadataKeyHeadphoneGain", "HKCyclingCyclingFunctionalThresholdPowerTestType", "HKActivityType", "HKPhysicalEffortEstimationType",
        "HKMetadataKeyMaximumLightIntensity",
    ]

    private static let wellKnownCodes: [String: UInt8] = Dictionary(
        uniqueKeysWithValues: wellKnownKeys.enumerated().map { ($0.element, UInt8($0.offset + 1)) })

    /// The type byte of a value in the binary form.
    private enum BinaryTag: UInt8 {
        /// Varint length, UTF-8 bytes.
        case string = 0
        case `false` = 1
        case `true` = 2
        /// Zigzag varint.
        case integer = 3
        /// The `Double`'s 8 bytes (little-endian bits).
        case double = 4
        /// `timeIntervalSinceReferenceDate`'s 8 bytes.
        case date = 5
        /// The value's 8 bytes, varint length, the unit's UTF-8 bytes.
        case quantity = 6
        /// An import's sync identifier: ``importSyncPrefix`` and the lowercase hex of these 32 bytes.
        case importDigest = 7
        /// As `importDigest`, followed by a suffix: the 32 bytes, varint length, the suffix's UTF-8 bytes.
        case importDigestSuffix = 8
    }

    /// Metadata in the binary form a sealed record keeps with flag 32: a varint count of entries,
    /// then per entry a key byte (a ``wellKnownKeys`` code, or 0 followed by a varint length and
    /// the key's UTF-8 bytes), a ``BinaryTag`` and the value. Entries are ordered by key byte, then
    /// key bytes. Every key and value is kept bit for bit, so ``expandBinary(_:offset:)`` gives back
    /// exactly `json` (`encode(values)`); nil when it would not, so the caller keeps `json`. That is
    /// checked, as ``compactSync(_:)`` checks it: by expanding, except for text without control
    /// characters and whole numbers under keys of ASCII letters (an import's metadata), whose JSON
    /// ``plainEncoding(_:)`` writes from the keys' and values' bytes alone, which the form keeps
    /// (their round trip is what `BinaryMetadataTests` tries). With `json` nil, only that form is given (nil for any
    /// other metadata), so that the save path encodes the JSON only for metadata that needs it.
    static func compactBinary(_ values: [String: Value], json: Data?) -> [UInt8]? {
        var entries: [(code: UInt8, key: String, value: Value)] = []
        entries.reserveCapacity(values.count)
        var capacity = 2
        var plain = true
        for (key, value) in values {
            let code = wellKnownCodes[key] ?? 0
            capacity += code == 0 ? key.utf8.count + 4 : 2
            switch value {
            case .string(let text):
                capacity += text.utf8.count + 12
                if plain { plain = !withBytes(of: text) { $0.contains { $0 < 0x20 } } }
            case .quantity(_, unit: let text): capacity += text.utf8.count + 12; plain = false
            case .integer: capacity += 10
            default: capacity += 10; plain = false
            }
            if plain {
                plain = withBytes(of: key) { $0.allSatisfy { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") } }
            }
            entries.append((code, key, value))
        }
        entries.sort { left, right in
            left.code != right.code ? left.code < right.code : left.key.utf8.lexicographicallyPrecedes(right.key.utf8)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        appendVarint(UInt64(entries.count), to: &bytes)
        for entry in entries {
            bytes.append(entry.code)
            if entry.code == 0 { appendText(entry.key, to: &bytes) }
            switch entry.value {
            case .string(let text):
                if let (digest, suffix) = importDigest(text) {
                    bytes.append(suffix.isEmpty ? BinaryTag.importDigest.rawValue : BinaryTag.importDigestSuffix.rawValue)
                    bytes.append(contentsOf: digest)
                    if !suffix.isEmpty {
                        appendVarint(UInt64(suffix.count), to: &bytes)
                        bytes.append(contentsOf: suffix)
                    }
                } else {
                    bytes.append(BinaryTag.string.rawValue)
                    appendText(text, to: &bytes)
                }
            case .bool(let flag):
                bytes.append(flag ? BinaryTag.true.rawValue : BinaryTag.false.rawValue)
            case .integer(let number):
                bytes.append(BinaryTag.integer.rawValue)
                appendVarint(UInt64(bitPattern: (number << 1) ^ (number >> 63)), to: &bytes)
            case .double(let number):
                bytes.append(BinaryTag.double.rawValue)
                appendLittleEndian(number.bitPattern, to: &bytes)
            case .date(let date):
                bytes.append(BinaryTag.date.rawValue)
                appendLittleEndian(date.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
            case .quantity(let number, let unit):
                bytes.append(BinaryTag.quantity.rawValue)
                appendLittleEndian(number.bitPattern, to: &bytes)
                appendText(unit, to: &bytes)
            }
        }
        // The check `compactSync` makes: the form is kept only when it expands to the exact JSON.
        if plain { return bytes }
        var offset = 0
        guard let json, let expanded = try? bytes.withUnsafeBufferPointer({ try expandBinary($0, offset: &offset) }),
              offset == bytes.count, expanded == json else { return nil }
        return bytes
    }

    /// The metadata JSON (`encode`) of a binary form ``compactBinary(_:json:)`` wrote, read from
    /// `bytes` at `offset`; `offset` moves past it (the form carries its own length).
    static func expandBinary(_ bytes: UnsafeBufferPointer<UInt8>, offset: inout Int) throws -> Data {
        let values = try decodeBinary(bytes, offset: &offset)
        do {
            return try encode(values)
        } catch {
            throw HealthStoreError(.corruptDatabase, "sealed binary metadata does not encode: \(error)")
        }
    }

    /// The values of a binary form, read from `bytes` at `offset`.
    static func decodeBinary(_ bytes: UnsafeBufferPointer<UInt8>, offset: inout Int) throws -> [String: Value] {
        func corrupt(_ what: String) -> HealthStoreError { HealthStoreError(.corruptDatabase, "sealed binary metadata \(what)") }
        func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw corrupt("is truncated") }
            defer { offset += 1 }
            return bytes[offset]
        }
        func varint() throws -> UInt64 {
            guard let value = try LEB128.read(byte) else { throw corrupt("has an overlong number") }
            return value
        }
        func raw(_ count: Int) throws -> UnsafeBufferPointer<UInt8> {
            guard count >= 0, bytes.count - offset >= count else { throw corrupt("is truncated") }
            defer { offset += count }
            return UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)])
        }
        /// A finite `Double` (a save never stores another: its JSON could not be written).
        func finite() throws -> Double {
            let value = Double(bitPattern: try raw(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            guard value.isFinite else { throw corrupt("has a number that is not finite") }
            return value
        }
        func text() throws -> String {
            let length = try varint()
            guard length <= UInt64(bytes.count - offset) else { throw corrupt("is truncated") }
            guard let text = String(validating: try raw(Int(length)), as: UTF8.self) else { throw corrupt("has text that is not UTF-8") }
            return text
        }
        func identifier(_ digest: UnsafeBufferPointer<UInt8>, suffix: String) -> String {
            var utf8 = Array(importSyncPrefix.utf8)
            utf8.reserveCapacity(utf8.count + 64 + suffix.utf8.count)
            for byte in digest {
                utf8.append(hexDigits[Int(byte >> 4)])
                utf8.append(hexDigits[Int(byte & 0x0F)])
            }
            utf8.append(contentsOf: suffix.utf8)
            return String(decoding: utf8, as: UTF8.self)
        }
        let count = try varint()
        var values: [String: Value] = [:]
        var read: UInt64 = 0
        while read < count {
            read += 1
            let code = try byte()
            let key: String
            if code == 0 {
                key = try text()
            } else {
                guard Int(code) <= wellKnownKeys.count else { throw corrupt("has an unknown key code") }
                key = wellKnownKeys[Int(code) - 1]
            }
            guard !key.isEmpty, values[key] == nil else { throw corrupt("has an empty or repeated key") }
            guard let tag = BinaryTag(rawValue: try byte()) else { throw corrupt("has an unknown value type") }
            switch tag {
            case .string: values[key] = .string(try text())
            case .false: values[key] = .bool(false)
            case .true: values[key] = .bool(true)
            case .integer:
                let zigzag = try varint()
                values[key] = .integer(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            case .double: values[key] = .double(try finite())
            case .date: values[key] = .date(Date(timeIntervalSinceReferenceDate: try finite()))
            case .quantity:
                let number = try finite()
                values[key] = .quantity(number, unit: try text())
            case .importDigest: values[key] = .string(identifier(try raw(32), suffix: ""))
            case .importDigestSuffix:
                let digest = try raw(32)
                values[key] = .string(identifier(digest, suffix: try text()))
            }
        }
        return values
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The digest bytes of an import's sync identifier (``importSyncPrefix``, 64 lowercase hex
    /// digits) and what follows them; nil for any other text.
    private static func importDigest(_ identifier: String) -> (digest: [UInt8], suffix: Substring.UTF8View)? {
        let utf8 = identifier.utf8
        let prefix = importSyncPrefix.utf8
        guard utf8.count >= prefix.count + 64, utf8.starts(with: prefix) else { return nil }
        let hexStart = utf8.index(utf8.startIndex, offsetBy: prefix.count)
        let hexEnd = utf8.index(hexStart, offsetBy: 64)
        // A native string's bytes are read in place (the generic walk over the view cost as much as the rest of the form).
        let contiguous = utf8.withContiguousStorageIfAvailable { bytes in
            lowercaseHexBytes(UnsafeBufferPointer(rebasing: bytes[prefix.count..<prefix.count + 64]), capacity: 32)
        }
        guard let digest = contiguous ?? lowercaseHexBytes(utf8[hexStart..<hexEnd], capacity: 32) else { return nil }
        return (digest, utf8[hexEnd...])
    }

    /// ``lowercaseHexBytes(_:capacity:)`` for bytes in memory (a native string's), the same answer: two digits a byte
    /// written straight into the array, where the general form appends each byte and keeps an optional half byte (0.4 s
    /// of a two-year import).
    private static func lowercaseHexBytes(_ hex: UnsafeBufferPointer<UInt8>, capacity: Int) -> [UInt8]? {
        let count = hex.count / 2
        // A last odd digit is checked, and spells nothing (as in the general form).
        if hex.count % 2 == 1, hexNibble(hex[hex.count - 1]) > 15 { return nil }
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: max(capacity, count)) { buffer, initialized in
            for index in 0..<count {
                let high = hexNibble(hex[2 * index])
                let low = hexNibble(hex[2 * index + 1])
                guard high | low <= 15 else {
                    valid = false
                    break
                }
                buffer[index] = high << 4 | low
            }
            initialized = valid ? count : 0
        }
        return valid ? bytes : nil
    }

    /// The value of a lowercase hex digit, or 0xFF for any other byte.
    @inline(__always)
    private static func hexNibble(_ character: UInt8) -> UInt8 {
        let digit = character &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = character &- UInt8(ascii: "a")
        return letter < 6 ? letter + 10 : 0xFF
    }

    /// The bytes lowercase hex digits (an even count of `0`–`9`, `a`–`f`) spell, in an array
    /// with room for `capacity` bytes; nil if any other character is there.
    private static func lowercaseHexBytes(_ hex: some Sequence<UInt8>, capacity: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        var high: UInt8?
        for character in hex {
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
        return bytes
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        LEB128.append(value, to: &bytes)
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendVarint(UInt64(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    private static func appendLittleEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
