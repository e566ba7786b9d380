import Foundation

/// The format of a value block: the canonical values of up to ``capacity`` quantity samples of
/// one type saved in one transaction, sealed together so that statistics open one AES-GCM box
/// per block instead of one per row.
///
/// Plaintext: ``entrySize`` bytes per entry, in entry order: the sample's UUID (16 bytes), its
/// start and end (`Double` bit patterns, 8 bytes each, little-endian) and its value in the
/// type's canonical unit (`Double` bit pattern, 8 bytes, little-endian: the same bits as the
/// row's own record, `SamplePayload.primaryBits`). The block is sealed with AES-256-GCM under
/// its own HKDF subkey (`RecordCipher.sealBlock`) and authenticates ``context(type:count:)``:
/// a label naming the format, the type identifier and the entry count.
///
/// A row reads its value only after checking that the entry at its `block_index` holds its own
/// UUID, start and end, bit for bit; so an entry cannot be moved to another row, nor a row to
/// another entry, and a block cannot serve another type. Every row keeps its own sealed record
/// as well; blocks only speed up statistics.
struct ValueBlock: Sendable {
    /// The bytes of one entry: UUID, start, end, value.
    static let entrySize = 40
    /// The most entries one block holds; larger groups are split.
    static let capacity = 4_096
    /// The fewest samples of a type a save seals into a block: a block of one saves no work.
    static let minimumEntries = 2
    /// The bytes AES-GCM adds to a sealed block: a 12-byte nonce and a 16-byte tag.
    static let sealingOverhead = 28

    private static let label = Array("ohk.value-block.v1".utf8)

    /// One entry, as a save writes it.
    struct Entry: Sendable {
        /// The sample's UUID bytes.
        var uuid: UUID
        /// The sample's start, in reference-date seconds.
        var start: Double
        /// The sample's end, in reference-date seconds.
        var end: Double
        /// The value's bits in the type's canonical unit.
        var valueBits: UInt64
    }

    /// The additional authenticated data of a block of `count` entries of `type`: the format
    /// label, the type identifier's UTF-8 length (4 bytes, little-endian) and bytes, and the
    /// entry count (4 bytes, little-endian).
    static func context(type: String, count: Int) -> Data {
        typedContext(label: label, type: type, trailer: UInt32(truncatingIfNeeded: count))
    }

    /// A format label, a type identifier's UTF-8 length (4 bytes, little-endian) and bytes, then
    /// `trailer` little-endian: the authenticated data of value blocks and rollup pages.
    static func typedContext(label: [UInt8], type: String, trailer: some FixedWidthInteger) -> Data {
        let typeBytes = Array(type.utf8)
        var data = Data(capacity: label.count + 12 + typeBytes.count)
        data.append(contentsOf: label)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: typeBytes.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: typeBytes)
        withUnsafeBytes(of: trailer.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// The plaintext of a block holding `entries`, in order.
    static func plaintext(_ entries: some Collection<Entry>) -> [UInt8] {
        var writer = ByteWriter(capacity: entries.count * entrySize)
        for entry in entries {
            writer.uuid(entry.uuid)
            writer.double(entry.start)
            writer.double(entry.end)
            writer.uint64(entry.valueBits)
        }
        return writer.bytes
    }

    /// The number of entries a sealed block of `sealedCount` bytes holds, or nil when no
    /// whole number of entries has that size.
    static func entryCount(sealedCount: Int) -> Int? {
        let plaintextCount = sealedCount - sealingOverhead
        guard plaintextCount > 0, plaintextCount % entrySize == 0 else { return nil }
        return plaintextCount / entrySize
    }

    /// The opened entries.
    let plaintext: Data

    /// The number of entries.
    var count: Int { plaintext.count / Self.entrySize }

    /// Opens a sealed block of `type`.
    /// - Throws: `HealthStoreError.tamperedRecord` when the block fails authentication (altered,
    ///   another type's block, another key); `.corruptDatabase` when its size is not a whole
    ///   number of entries.
    init(opening sealed: some DataProtocol, type: String, cipher: RecordCipher) throws {
        guard let count = Self.entryCount(sealedCount: sealed.count) else {
            throw HealthStoreError(.corruptDatabase, "a value block has an invalid size")
        }
        let opened = try cipher.openBlock(sealed, context: Self.context(type: type, count: count))
        guard opened.count == count * Self.entrySize else {
            throw HealthStoreError(.corruptDatabase, "a value block has an invalid size")
        }
        plaintext = opened
    }

    /// The value bits of entry `index`, after checking that the entry belongs to the row with
    /// `uuid` (16 bytes), `start` and `end`.
    /// - Throws: `HealthStoreError.corruptDatabase` when `index` is outside the block;
    ///   `.tamperedRecord` when the entry belongs to another row.
    func valueBits(at index: Int, uuid: UnsafeRawBufferPointer, start: Double, end: Double) throws -> UInt64 {
        guard index >= 0, index < count, uuid.count == 16 else {
            throw HealthStoreError(.corruptDatabase, "a sample row points outside its value block")
        }
        return try plaintext.withUnsafeBytes { bytes in
            let base = index * Self.entrySize
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
