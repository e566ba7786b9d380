import Foundation

/// The format of a value block: the canonical values of up to ``capacity`` quantity samples of
/// one type saved in one transaction, sealed together so that statistics open one AES-GCM box
/// per block instead of one per row. Each block is sealed with AES-256-GCM under its own HKDF
/// subkey (`RecordCipher.sealBlock`) and authenticates a label naming its format and the type
/// identifier, so a block cannot serve another type nor be read in another format.
///
/// **Format 2** (written since issue 36), about 21 bytes an entry instead of 40. Plaintext: the
/// entry count (2 bytes, little-endian, at least 1), then each entry in order:
/// - a header byte: bit 0 the start's form, bits 1–2 the end's, bit 3 the value's, bits 4–7
///   the number of value bytes (0…8);
/// - the UUID's first 8 bytes as a big-endian integer (``uuidHead(_:)``), written as the zigzag
///   LEB128 wrapping difference from the previous entry's (0 before the first): time-ordered
///   UUIDs of one save share their millisecond, so this is two or three bytes for them;
/// - the UUID's last 8 bytes (``uuidTail(_:)``);
/// - the start: form 0 is a whole number of seconds written as the zigzag LEB128 difference
///   from the last start written in form 0 (0 before the first); form 1 is the `Double` bit
///   pattern (8 bytes, little-endian), for anything else (fractions, -0, huge magnitudes);
/// - the end: form 0 is "the same bits as the start" (nothing written); form 1, only after a
///   start of form 0, is a whole number of seconds written as the LEB128 amount (at least 1)
///   it adds to the start; form 2 is the bit pattern (8 bytes, little-endian); 3 is invalid;
/// - the value's bits in the type's canonical unit (the row's `SamplePayload.primaryBits`):
///   form 0 writes the pattern's `n` highest bytes (the others are zero), form 1 the `n` lowest
///   bytes of its XOR with the previous entry's value bits (0 before the first; the others are
///   zero), low byte first. The writer takes the shorter, form 0 on a tie.
///
/// A zero byte follows the last entry when the plaintext would otherwise be a multiple of 40
/// bytes long: a sealed block whose plaintext is a whole number of 40-byte entries is format 1,
/// any other is format 2. The authenticated data is ``context(type:)``.
///
/// **Format 1** (stores written before issue 36, still read): ``format1EntrySize`` bytes per
/// entry: the UUID (16 bytes), start, end and value bits (8 bytes each, little-endian),
/// authenticating ``format1Context(type:count:)`` (its label, the type and the entry count).
///
/// A row reads its value only after checking that the entry at its `block_index` is bound to
/// it: its start and end bit for bit and all 16 bytes of its UUID, in both formats. So an entry
/// cannot be moved to another row, nor a row to another entry, and a block cannot serve another
/// type: the row's `uuid`, `start` and `end` are in the clear and can be edited without the key,
/// but the UUID is unique in the table, so no second row can carry the UUID an entry names
/// (a partial UUID would not do: a row given another's last 8 bytes, start and end could then
/// read that row's entry). Forging an entry needs the key. Every row keeps its own sealed record
/// as well; blocks only speed up statistics.
struct ValueBlock: Sendable {
    /// The bytes of one format-1 entry: UUID, start, end, value.
    static let format1EntrySize = 40
    /// The most entries one block holds; larger groups are split.
    static let capacity = 4_096
    /// The fewest samples of a type a save seals into a block: a block of one saves no work.
    static let minimumEntries = 2
    /// The bytes AES-GCM adds to a sealed block: a 12-byte nonce and a 16-byte tag.
    static let sealingOverhead = 28

    private static let format1Label = Array("ohk.value-block.v1".utf8)
    private static let label = Array("ohk.value-block.v2".utf8)

    /// One entry, as a save writes it.
    struct Entry: Sendable, Equatable {
        /// The sample's UUID bytes.
        var uuid: UUID
        /// The sample's start, in reference-date seconds.
        var start: Double
        /// The sample's end, in reference-date seconds.
        var end: Double
        /// The value's bits in the type's canonical unit.
        var valueBits: UInt64
    }

    /// One opened entry: what a row is checked against, and its value.
    struct OpenedEntry: Sendable, Equatable {
        /// The UUID's first 8 bytes (``uuidHead(_:)``).
        var uuidHead: UInt64
        /// The UUID's last 8 bytes (``uuidTail(_:)``).
        var uuidTail: UInt64
        var startBits: UInt64
        var endBits: UInt64
        var valueBits: UInt64
    }

    /// The additional authenticated data of a format-2 block of `type`: the format label and
    /// the type identifier's UTF-8 length (4 bytes, little-endian) and bytes (the entry count
    /// is in the sealed plaintext).
    static func context(type: String) -> Data {
        let typeBytes = Array(type.utf8)
        var data = Data(capacity: label.count + 4 + typeBytes.count)
        data.append(contentsOf: label)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: typeBytes.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: typeBytes)
        return data
    }

    /// The additional authenticated data of a format-1 block of `count` entries of `type`: the
    /// format label, the type identifier's UTF-8 length (4 bytes, little-endian) and bytes, and
    /// the entry count (4 bytes, little-endian).
    static func format1Context(type: String, count: Int) -> Data {
        typedContext(label: format1Label, type: type, trailer: UInt32(truncatingIfNeeded: count))
    }

    /// A format label, a type identifier's UTF-8 length (4 bytes, little-endian) and bytes, then
    /// `trailer` little-endian: the authenticated data of format-1 value blocks and rollup pages.
    static func typedContext(label: [UInt8], type: String, trailer: some FixedWidthInteger) -> Data {
        let typeBytes = Array(type.utf8)
        var data = Data(capacity: label.count + 12 + typeBytes.count)
        data.append(contentsOf: label)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: typeBytes.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: typeBytes)
        withUnsafeBytes(of: trailer.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// A UUID's first 8 bytes as a big-endian integer (so that time-ordered UUIDs made one after
    /// the other differ by little).
    static func uuidHead(_ uuid: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bigEndian: uuid.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
    }

    /// A UUID's last 8 bytes, as a little-endian integer.
    static func uuidTail(_ uuid: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(littleEndian: uuid.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// Seals `entries` (1 to 65,535 of them) as a format-2 block of `type`.
    static func seal(_ entries: some Collection<Entry>, type: String, cipher: RecordCipher) throws -> Data {
        try cipher.sealBlock(plaintext(entries), context: context(type: type))
    }

    /// The format-2 plaintext of a block holding `entries` (1 to 65,535 of them), in order.
    static func plaintext(_ entries: some Collection<Entry>) -> [UInt8] {
        // At most 47 bytes an entry (header, three 10-byte LEB128 numbers, tail, value) and 8
        // spare, so that every field is stored as 8 bytes and the position moves by its length.
        precondition(entries.count <= 65_535, "a value block holds at most \(Self.capacity) entries; the plan splits larger groups")
        let capacity = 3 + entries.count * 47 + 8
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, written in
            guard let base = UnsafeMutableRawPointer(buffer.baseAddress) else { return }
            var position = 0
            func store(_ value: UInt64, count: Int) {
                base.storeBytes(of: value.littleEndian, toByteOffset: position, as: UInt64.self)
                position += count
            }
            func storeLEB128(_ value: UInt64) {
                var rest = value
                while rest >= 0x80 {
                    base.storeBytes(of: UInt8(truncatingIfNeeded: rest) | 0x80, toByteOffset: position, as: UInt8.self)
                    position += 1
                    rest >>= 7
                }
                base.storeBytes(of: UInt8(truncatingIfNeeded: rest), toByteOffset: position, as: UInt8.self)
                position += 1
            }
            store(UInt64(entries.count), count: 2)
            var lastWholeStart: Int64 = 0
            var lastValue: UInt64 = 0
            var lastHead: UInt64 = 0
            for entry in entries {
                let wholeStart = wholeSeconds(entry.start)
                let sameEnd = entry.end.bitPattern == entry.start.bitPattern
                var wholeEnd: Int64?
                if !sameEnd, let wholeStart, let end = wholeSeconds(entry.end), end > wholeStart { wholeEnd = end }
                let endForm: UInt8 = sameEnd ? 0 : wholeEnd == nil ? 2 : 1
                let high = 8 - entry.valueBits.trailingZeroBitCount / 8
                let difference = entry.valueBits ^ lastValue
                let low = 8 - difference.leadingZeroBitCount / 8
                let xorForm = low < high
                var header = endForm << 1 | UInt8(xorForm ? low : high) << 4
                if wholeStart == nil { header |= 1 }
                if xorForm { header |= 1 << 3 }
                store(UInt64(header), count: 1)
                withUnsafeBytes(of: entry.uuid.uuid) { uuid in
                    let head = uuidHead(uuid)
                    storeLEB128(zigzag(Int64(bitPattern: head &- lastHead)))
                    lastHead = head
                    store(uuidTail(uuid), count: 8)
                }
                if let wholeStart {
                    storeLEB128(zigzag(wholeStart &- lastWholeStart))
                    lastWholeStart = wholeStart
                } else {
                    store(entry.start.bitPattern, count: 8)
                }
                if let wholeEnd, let wholeStart {
                    storeLEB128(UInt64(bitPattern: wholeEnd &- wholeStart))
                } else if !sameEnd {
                    store(entry.end.bitPattern, count: 8)
                }
                if xorForm {
                    store(difference, count: low)
                } else {
                    store(high == 0 ? 0 : entry.valueBits >> (8 * UInt64(8 - high)), count: high)
                }
                lastValue = entry.valueBits
            }
            if position % format1EntrySize == 0 { store(0, count: 1) }
            written = position
        }
    }

    /// The format-1 plaintext of a block holding `entries`, in order (blocks written before issue
    /// 36; tests seal blocks the old way with it).
    static func format1Plaintext(_ entries: some Collection<Entry>) -> [UInt8] {
        var writer = ByteWriter(capacity: entries.count * format1EntrySize)
        for entry in entries {
            writer.uuid(entry.uuid)
            writer.double(entry.start)
            writer.double(entry.end)
            writer.uint64(entry.valueBits)
        }
        return writer.bytes
    }

    /// `value` as a whole number of seconds when that number converts back to the same bits
    /// (so not -0, a fraction, or beyond ±2^53), else nil.
    private static func wholeSeconds(_ value: Double) -> Int64? {
        guard value.magnitude <= 9_007_199_254_740_992, value == value.rounded(.towardZero) else { return nil }
        let whole = Int64(value)
        return Double(whole).bitPattern == value.bitPattern ? whole : nil
    }

    private static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    private static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    /// The entries of a format-2 plaintext.
    /// - Throws: `HealthStoreError.corruptDatabase` when the bytes are not a whole format-2
    ///   block (truncated, an invalid form or length, trailing bytes); never traps.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> [OpenedEntry] {
        var reader = Reader(bytes: bytes)
        let count = Int(try reader.uint16())
        guard count > 0 else { throw reader.corrupt }
        var entries: [OpenedEntry] = []
        entries.reserveCapacity(count)
        var lastWholeStart: Int64 = 0
        var lastValue: UInt64 = 0
        var lastHead: UInt64 = 0
        for _ in 0..<count {
            let header = try reader.byte()
            let head = lastHead &+ UInt64(bitPattern: unzigzag(try reader.leb128()))
            lastHead = head
            let tail = try reader.uint64()
            let startBits: UInt64
            var wholeStart: Int64?
            if header & 1 == 0 {
                let (sum, overflow) = lastWholeStart.addingReportingOverflow(unzigzag(try reader.leb128()))
                guard !overflow else { throw reader.corrupt }
                lastWholeStart = sum
                wholeStart = sum
                startBits = Double(sum).bitPattern
            } else {
                startBits = try reader.uint64()
            }
            let endBits: UInt64
            switch (header >> 1) & 3 {
            case 0:
                endBits = startBits
            case 1:
                guard let wholeStart else { throw reader.corrupt }
                let amount = try reader.leb128()
                guard amount > 0, amount <= UInt64(Int64.max) else { throw reader.corrupt }
                let (sum, overflow) = wholeStart.addingReportingOverflow(Int64(amount))
                guard !overflow else { throw reader.corrupt }
                endBits = Double(sum).bitPattern
            case 2:
                endBits = try reader.uint64()
            default:
                throw reader.corrupt
            }
            let length = Int(header >> 4)
            guard length <= 8 else { throw reader.corrupt }
            let field = try reader.uint(length)
            let valueBits: UInt64
            if header & 8 == 0 {
                valueBits = length == 0 ? 0 : field << (8 * UInt64(8 - length))
            } else {
                valueBits = lastValue ^ field
            }
            lastValue = valueBits
            entries.append(OpenedEntry(uuidHead: head, uuidTail: tail, startBits: startBits, endBits: endBits, valueBits: valueBits))
        }
        // Nothing more, or the zero byte that keeps the size off format 1's.
        let padding = reader.remaining == 1 && bytes.count % format1EntrySize == 1 && bytes[bytes.count - 1] == 0
        guard reader.remaining == 0 || padding else { throw reader.corrupt }
        return entries
    }

    /// Reads little-endian fields, throwing instead of reading past the end.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        var corrupt: HealthStoreError { HealthStoreError(.corruptDatabase, "a value block has an invalid layout") }
        var remaining: Int { bytes.count - position }

        mutating func byte() throws -> UInt8 {
            guard position < bytes.count else { throw corrupt }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func uint16() throws -> UInt16 {
            guard remaining >= 2 else { throw corrupt }
            defer { position += 2 }
            return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self))
        }

        /// A little-endian number of `count` bytes (0…8).
        mutating func uint(_ count: Int) throws -> UInt64 {
            guard count > 0 else { return 0 }
            guard remaining >= 8 else {
                var field: UInt64 = 0
                for index in 0..<count { field |= UInt64(try byte()) << (8 * UInt64(index)) }
                return field
            }
            let field = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            position += count
            return count == 8 ? field : field & ((1 << (8 * UInt64(count))) - 1)
        }

        mutating func uint64() throws -> UInt64 {
            guard remaining >= 8 else { throw corrupt }
            defer { position += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        }

        /// An unsigned LEB128 number of at most 10 bytes that fits in 64 bits.
        mutating func leb128() throws -> UInt64 {
            guard let value = try LEB128.read({ try byte() }) else { throw corrupt }
            return value
        }
    }

    /// The opened entries: format 1's plaintext as stored, or format 2's decoded.
    private enum Storage: Sendable {
        case format1(Data)
        case format2([OpenedEntry])
    }

    private let storage: Storage

    /// The number of entries.
    let count: Int

    /// Opens a sealed block of `type`, of either format (told apart by size).
    /// - Throws: `HealthStoreError.tamperedRecord` when the block fails authentication (altered,
    ///   another type's block, another key); `.corruptDatabase` when its plaintext is not a
    ///   whole block of its format.
    init(opening sealed: some DataProtocol, type: String, cipher: RecordCipher) throws {
        let plaintextCount = sealed.count - Self.sealingOverhead
        guard plaintextCount > 0 else {
            throw HealthStoreError(.corruptDatabase, "a value block has an invalid size")
        }
        if plaintextCount % Self.format1EntrySize == 0 {
            let count = plaintextCount / Self.format1EntrySize
            let opened = try cipher.openBlock(sealed, context: Self.format1Context(type: type, count: count))
            guard opened.count == count * Self.format1EntrySize else {
                throw HealthStoreError(.corruptDatabase, "a value block has an invalid size")
            }
            storage = .format1(opened)
            self.count = count
        } else {
            let opened = try cipher.openBlock(sealed, context: Self.context(type: type))
            let entries = try opened.withUnsafeBytes { try Self.decode($0) }
            storage = .format2(entries)
            count = entries.count
        }
    }

    /// The 16 UUID bytes each entry names, in entry order: the rows the block may serve.
    /// Dissolving a block (`HealthDatabase.dissolveBlocks`) finds its rows through them and the
    /// UUID index, so the store needs no index on `sample.block_id`.
    var uuids: [Data] {
        switch storage {
        case .format2(let entries):
            return entries.map { entry in
                var bytes = Data(count: 16)
                bytes.withUnsafeMutableBytes { raw in
                    raw.storeBytes(of: entry.uuidHead.bigEndian, toByteOffset: 0, as: UInt64.self)
                    raw.storeBytes(of: entry.uuidTail.littleEndian, toByteOffset: 8, as: UInt64.self)
                }
                return bytes
            }
        case .format1(let plaintext):
            return plaintext.withUnsafeBytes { bytes in
                (0..<count).map { index in Data(bytes[(index * Self.format1EntrySize)..<(index * Self.format1EntrySize + 16)]) }
            }
        }
    }

    /// The value bits of entry `index`, after checking that the entry belongs to the row with
    /// `uuid` (16 bytes), `start` and `end`.
    /// - Throws: `HealthStoreError.corruptDatabase` when `index` is outside the block;
    ///   `.tamperedRecord` when the entry belongs to another row.
    func valueBits(at index: Int, uuid: UnsafeRawBufferPointer, start: Double, end: Double) throws -> UInt64 {
        guard index >= 0, index < count, uuid.count == 16 else {
            throw HealthStoreError(.corruptDatabase, "a sample row points outside its value block")
        }
        switch storage {
        case .format2(let entries):
            let entry = entries[index]
            guard entry.uuidTail == Self.uuidTail(uuid), entry.uuidHead == Self.uuidHead(uuid), entry.startBits == start.bitPattern,
                  entry.endBits == end.bitPattern else {
                throw HealthStoreError(.tamperedRecord, "a value block entry does not belong to its row")
            }
            return entry.valueBits
        case .format1(let plaintext):
            return try plaintext.withUnsafeBytes { bytes in
                let base = index * Self.format1EntrySize
                for position in 0..<16 where bytes[base + position] != uuid[position] {
                    throw HealthStoreError(.tamperedRecord, "a value block entry does not belong to its row")
                }
                let storedStart = bytes.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self)
                let storedEnd = bytes.loadUnaligned(fromByteOffset: base + 24, as: UInt64.self)
                guard UInt64(littleEndian: storedStart) == start.bitPattern, UInt64(littleEndian: storedEnd) == end.bitPattern else {
                    throw HealthStoreError(.tamperedRecord, "a value block entry does not belong to its row")
                }
                return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: base + 32, as: UInt64.self))
            }
        }
    }
}
