import Foundation

/// The secret part of a stored sample, before sealing: its value, metadata, device and, for
/// workouts, totals and events.
///
/// Layout (little-endian): format byte, flags byte, 8-byte primary value (a quantity's value
/// in its type's canonical unit as `Double` bits, or a category value as `Int64`), then for
/// each flag a 4-byte length and a JSON section. The fixed prefix lets statistics read the
/// value without touching JSON.
///
/// Flag 8 (with flag 1) marks a compact metadata section (``MetadataCodec/compactSync(_:)``):
/// an Apple Health import's sync identifier as its 32 digest bytes and its version, then the
/// JSON of the other entries, if any. Decoding expands it to the same JSON bytes the sample was
/// saved with, so `metadata` always holds ``MetadataCodec``'s JSON.
///
/// Flag 32 (with flag 1) marks binary metadata (``MetadataCodec/compactBinary(_:json:)``): every
/// entry as a one-byte well-known key code (or its key's text) and a typed value, an import's
/// sync identifier as its digest's 32 bytes. It carries its own length (no 4-byte prefix).
/// Decoding expands it to the same JSON bytes too. Flags 8 and 32 are never both set.
///
/// Flag 16 (v19-devices) replaces the device's JSON section by a reference: the 16 bytes of
/// the keyed hash its `device` row is found by (no length prefix). `device` is then nil after
/// decoding; reading expands it from the row (``DecodingContext/device(_:)``).
struct SamplePayload {
    static let format: UInt8 = 1

    private struct Flags: OptionSet {
        let rawValue: UInt8
        static let metadata = Flags(rawValue: 1)
        static let device = Flags(rawValue: 2)
        static let extra = Flags(rawValue: 4)
        static let compactMetadata = Flags(rawValue: 8)
        static let deviceReference = Flags(rawValue: 16)
        static let binaryMetadata = Flags(rawValue: 32)
    }

    /// The length of a device reference (``RecordCipher/indexHash(_:)``'s).
    static let deviceReferenceCount = 16

    var primaryBits: UInt64
    var metadata: Data?
    var device: Data?
    var extra: Data?
    /// The compact form of `metadata`, written in its place when set (the save path sets it only
    /// for metadata it expands back to exactly `metadata`).
    var compactMetadata: [UInt8]?
    /// The binary form of `metadata`, written in its place when set (before `compactMetadata`);
    /// the save path sets it only for metadata it expands back to exactly the metadata's JSON
    /// (an import's bulk save may then leave `metadata` itself unencoded: the record keeps only this form).
    var binaryMetadata: [UInt8]?
    /// The keyed hash of the `device` row holding the device's JSON, written in place of
    /// `device` when set (16 bytes).
    var deviceReference: Data?

    var doubleValue: Double { Double(bitPattern: primaryBits) }
    var integerValue: Int64 { Int64(bitPattern: primaryBits) }

    init(double: Double, metadata: Data? = nil, device: Data? = nil, extra: Data? = nil) {
        self.init(primaryBits: double.bitPattern, metadata: metadata, device: device, extra: extra)
    }

    init(integer: Int64, metadata: Data? = nil, device: Data? = nil, extra: Data? = nil) {
        self.init(primaryBits: UInt64(bitPattern: integer), metadata: metadata, device: device, extra: extra)
    }

    init(primaryBits: UInt64, metadata: Data?, device: Data?, extra: Data?) {
        self.primaryBits = primaryBits
        self.metadata = metadata
        self.device = device
        self.extra = extra
    }

    func encoded() -> Data {
        Data(encodedBytes())
    }

    /// The layout above as bytes, what the save path seals.
    func encodedBytes() -> [UInt8] {
        var flags = Flags()
        let binary = metadata == nil ? nil : binaryMetadata
        let compact = metadata == nil || binary != nil ? nil : compactMetadata
        if metadata != nil { flags.insert(.metadata) }
        if compact != nil { flags.insert(.compactMetadata) }
        if binary != nil { flags.insert(.binaryMetadata) }
        let reference = deviceReference.flatMap { $0.count == Self.deviceReferenceCount ? $0 : nil }
        if reference != nil {
            flags.insert(.deviceReference)
        } else if device != nil {
            flags.insert(.device)
        }
        if extra != nil { flags.insert(.extra) }
        let metadataCount = binary?.count ?? compact?.count ?? metadata?.count ?? 0
        let deviceCount = reference?.count ?? device?.count ?? 0
        var writer = ByteWriter(capacity: 10 + metadataCount + deviceCount + (extra?.count ?? 0) + 12)
        writer.byte(Self.format)
        writer.byte(flags.rawValue)
        writer.uint64(primaryBits)
        func section(_ data: Data?) {
            guard let data else { return }
            writer.uint32(UInt32(data.count))
            writer.append(data)
        }
        if let binary {
            writer.append(bytes: binary)
        } else if let compact {
            writer.uint32(UInt32(compact.count))
            writer.append(bytes: compact)
        } else {
            section(metadata)
        }
        if let reference {
            writer.append(reference)
        } else {
            section(device)
        }
        section(extra)
        return writer.bytes
    }

    /// Reads only the primary value: the statistics fast path.
    static func primaryBits(of data: Data) throws -> UInt64 {
        guard data.count >= 10, data[data.startIndex] == format else {
            throw HealthStoreError(.corruptDatabase, "sealed sample has an unknown layout")
        }
        var bits: UInt64 = 0
        for index in 0..<8 {
            bits |= UInt64(data[data.startIndex + 2 + index]) << (8 * UInt64(index))
        }
        return bits
    }

    init(decoding data: Data) throws {
        let bits = try Self.primaryBits(of: data)
        let flags = Flags(rawValue: data[data.startIndex + 1])
        var offset = data.startIndex + 10
        func section() throws -> Data {
            guard data.endIndex - offset >= 4 else { throw HealthStoreError(.corruptDatabase, "sealed sample is truncated") }
            var length = 0
            for index in 0..<4 { length |= Int(data[offset + index]) << (8 * index) }
            offset += 4
            guard data.endIndex - offset >= length else { throw HealthStoreError(.corruptDatabase, "sealed sample is truncated") }
            defer { offset += length }
            return data.subdata(in: offset..<(offset + length))
        }
        var metadata: Data?
        if flags.contains(.binaryMetadata) {
            guard flags.contains(.metadata), !flags.contains(.compactMetadata) else {
                throw HealthStoreError(.corruptDatabase, "sealed sample has binary metadata flags without their section")
            }
            var relative = offset - data.startIndex
            metadata = try data.withUnsafeBytes { raw in
                try MetadataCodec.expandBinary(raw.assumingMemoryBound(to: UInt8.self), offset: &relative)
            }
            offset = data.startIndex + relative
        } else if flags.contains(.metadata) {
            metadata = try section()
            if flags.contains(.compactMetadata), let compact = metadata {
                metadata = try MetadataCodec.expandCompactSync(compact)
            }
        }
        let device = flags.contains(.device) ? try section() : nil
        var reference: Data?
        if flags.contains(.deviceReference) {
            guard data.endIndex - offset >= Self.deviceReferenceCount else {
                throw HealthStoreError(.corruptDatabase, "sealed sample is truncated")
            }
            reference = data.subdata(in: offset..<(offset + Self.deviceReferenceCount))
            offset += Self.deviceReferenceCount
        }
        let extra = flags.contains(.extra) ? try section() : nil
        self.init(primaryBits: bits, metadata: metadata, device: device, extra: extra)
        deviceReference = reference
    }
}

/// Workout details kept in a sealed payload's extra section, in canonical units.
struct WorkoutExtra: Codable {
    var duration: Double
    var energyKilocalories: Double?
    var distanceMeters: Double?
    var swimmingStrokes: Double?
    var flightsClimbed: Double?
    var events: [Event]?
    /// The activities of a workout built with them (multisport), each with its statistics.
    var activities: [WorkoutActivityRecord]?
    /// The workout's statistics per quantity type, from the samples added to its builder.
    var statistics: [WorkoutStatisticsRecord]?

    struct Event: Codable {
        var type: Int
        var start: Double
        var end: Double
        /// The event's metadata in ``MetadataCodec``'s encoding (absent in details stored before
        /// events kept theirs, and for an event without metadata).
        var metadata: Data?
    }
}

/// Quantity-sample details kept in the extra section: the number of quantities when it is not 1,
/// and the value and unit the sample was created with when that unit is not the type's
/// canonical one, so a heart rate saved as 62 count/min reads back as exactly 62 count/min.
///
/// Layout: flags byte (1 = count, 2 = original), then an `Int64` count, then a `Double` value,
/// a 2-byte length and the unit string's UTF-8 bytes. Hand-written because it sits on the
/// save path of every quantity sample and JSON would cost more than the sealing.
struct QuantityExtra: Equatable {
    var count: Int?
    var originalValue: Double?
    var originalUnit: String?

    var isEmpty: Bool { count == nil && originalUnit == nil }

    func encoded() -> Data {
        let hasOriginal = originalValue != nil && originalUnit != nil
        var writer = ByteWriter(capacity: 19 + (originalUnit?.utf8.count ?? 0))
        writer.byte((count != nil ? 1 : 0) | (hasOriginal ? 2 : 0))
        if let count { writer.uint64(UInt64(bitPattern: Int64(count))) }
        if hasOriginal, let value = originalValue, let unit = originalUnit {
            writer.double(value)
            writer.uint16(UInt16(min(unit.utf8.count, Int(UInt16.max))))
            writer.append(utf8: unit, maxCount: Int(UInt16.max))
        }
        return Data(writer.bytes)
    }

    init(count: Int? = nil, originalValue: Double? = nil, originalUnit: String? = nil) {
        self.count = count
        self.originalValue = originalValue
        self.originalUnit = originalUnit
    }

    init(decoding data: Data) throws {
        let bytes = [UInt8](data)
        guard let flags = bytes.first else { throw HealthStoreError(.corruptDatabase, "sealed quantity details are empty") }
        var offset = 1
        func integer(_ width: Int) throws -> UInt64 {
            guard bytes.count - offset >= width else { throw HealthStoreError(.corruptDatabase, "sealed quantity details are truncated") }
            var value: UInt64 = 0
            for index in 0..<width { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += width
            return value
        }
        if flags & 1 != 0 { count = Int(Int64(bitPattern: try integer(8))) }
        if flags & 2 != 0 {
            originalValue = Double(bitPattern: try integer(8))
            let length = Int(try integer(2))
            guard bytes.count - offset >= length else { throw HealthStoreError(.corruptDatabase, "sealed quantity details are truncated") }
            originalUnit = String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
        }
    }
}
