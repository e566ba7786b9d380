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
        // Groups by type in first-seen order; a save is mostly runs of one type, so the last
        // group is checked before the dictionary.
        var types: [String] = []
        var groups: [[ValueBlock.Entry]] = []
        var groupOfType: [String: Int] = [:]
        var last = -1
        func group(of type: String) -> Int {
            if last >= 0, types[last] == type { return last }
            if let index = groupOfType[type] {
                last = index
            } else {
                last = types.count
                groupOfType[type] = last
                types.append(type)
                groups.append([])
            }
            return last
        }
        Self.visitQuantities(&samples) { sample in
            groups[group(of: sample.type)].append(
                ValueBlock.Entry(uuid: sample.uuid, start: sample.start, end: sample.end, valueBits: sample.primaryBits))
        }
        var firstBlock = [Int?](repeating: nil, count: types.count)
        for (index, group) in groups.enumerated() where group.count >= ValueBlock.minimumEntries {
            firstBlock[index] = blocks.count
            for offset in stride(from: 0, to: group.count, by: ValueBlock.capacity) {
                let chunk = group[offset..<min(offset + ValueBlock.capacity, group.count)]
                blocks.append(Block(type: types[index], sealed: try ValueBlock.seal(chunk, type: types[index], cipher: cipher)))
            }
        }
        guard !blocks.isEmpty else { return }
        var positions = [Int](repeating: 0, count: types.count)
        Self.visitQuantities(&samples) { sample in
            let index = group(of: sample.type)
            guard let first = firstBlock[index] else { return }
            let position = positions[index]
            positions[index] = position + 1
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
