import Foundation

/// The value blocks of one save, sealed before its write transaction so sealing never holds
/// the writer lock.
///
/// The quantity samples of the save (correlation members included) are grouped by type in
/// save order; each group of at least ``ValueBlock/minimumEntries`` samples is cut into blocks
/// of at most ``ValueBlock/capacity`` entries, and every sample of such a group gets the
/// ``Slot`` of its entry. The write inserts the blocks first, then the rows with their slots;
/// a planned sample that is not stored after all (a sync-identifier duplicate with an older
/// version) dissolves its block inside the same transaction, so no block holds a value that is
/// not stored.
struct ValueBlockPlan: Sendable {
    /// Where a sample's value sits: the block's position in ``blocks`` and the entry's index.
    struct Slot: Sendable, Hashable {
        /// The position of the block in ``ValueBlockPlan/blocks``.
        var block: Int
        /// The entry's index in the block (the row's `block_index`).
        var index: Int
    }

    /// A sealed block ready for insertion.
    struct Block: Sendable {
        /// The quantity type identifier of every entry.
        var type: String
        /// The sealed plaintext (``ValueBlock``).
        var sealed: Data
    }

    /// The sealed blocks, in the order their slots number them.
    private(set) var blocks: [Block] = []

    /// Plans and seals the blocks of `samples`, setting each blocked sample's `blockSlot`.
    init(samples: inout [PreparedSample], cipher: RecordCipher) throws {
        var order: [String] = []
        var entries: [String: [ValueBlock.Entry]] = [:]
        Self.visitQuantities(&samples) { sample in
            let entry = ValueBlock.Entry(uuid: sample.uuid, start: sample.start, end: sample.end, valueBits: sample.primaryBits)
            if entries[sample.type]?.append(entry) == nil {
                order.append(sample.type)
                entries[sample.type] = [entry]
            }
        }
        var firstBlock: [String: Int] = [:]
        for type in order {
            guard let group = entries[type], group.count >= ValueBlock.minimumEntries else { continue }
            firstBlock[type] = blocks.count
            for offset in stride(from: 0, to: group.count, by: ValueBlock.capacity) {
                let chunk = group[offset..<min(offset + ValueBlock.capacity, group.count)]
                let sealed = try cipher.sealBlock(ValueBlock.plaintext(chunk), context: ValueBlock.context(type: type, count: chunk.count))
                blocks.append(Block(type: type, sealed: sealed))
            }
        }
        guard !blocks.isEmpty else { return }
        var positions: [String: Int] = [:]
        Self.visitQuantities(&samples) { sample in
            guard let first = firstBlock[sample.type] else { return }
            let position = positions[sample.type, default: 0]
            positions[sample.type] = position + 1
            sample.blockSlot = Slot(block: first + position / ValueBlock.capacity, index: position % ValueBlock.capacity)
        }
    }

    /// The slots of `sample` and of its members, recursively.
    static func slots(of sample: PreparedSample) -> [Slot] {
        var result: [Slot] = sample.blockSlot.map { [$0] } ?? []
        for member in sample.members { result += slots(of: member) }
        return result
    }

    /// Calls `body` on every quantity sample, members included, always in the same order.
    private static func visitQuantities(_ samples: inout [PreparedSample], _ body: (inout PreparedSample) -> Void) {
        for index in samples.indices {
            if samples[index].kind == .quantity { body(&samples[index]) }
            if !samples[index].members.isEmpty { visitQuantities(&samples[index].members, body) }
        }
    }
}
