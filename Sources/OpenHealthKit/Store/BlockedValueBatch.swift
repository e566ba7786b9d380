import Dispatch
import Foundation
import Synchronization

/// The quantity rows of a statistics read whose values sit in value blocks (``ValueBlock``):
/// each row's clear start, end, UUID and source with its block and entry index, and the sealed
/// blocks, all gathered inside one read transaction. Opening opens each block once (blocks in
/// parallel when there are several) and checks every row against its entry.
struct BlockedValueBatch: Sendable {
    private(set) var starts: [Double] = []
    private(set) var ends: [Double] = []
    private(set) var sources: [Int32] = []
    /// Row i's UUID is `uuids[16 * i ..< 16 * (i + 1)]`.
    private var uuids: [UInt8] = []
    /// Row i's block, as a position in `blockIDs`.
    private var blockNumbers: [Int32] = []
    /// Row i's `block_index` as stored (checked when opening).
    private var entryIndices: [Int] = []
    /// The distinct blocks the rows point at, in first-seen order.
    private(set) var blockIDs: [Int64] = []
    private var numberByID: [Int64: Int32] = [:]
    /// The sealed blocks, parallel to `blockIDs`, once fetched.
    private var sealedBlocks: [Data] = []

    var count: Int { starts.count }

    /// Adds a row that points at entry `index` of block `blockID`; `uuid` is its 16 UUID bytes.
    mutating func append(start: Double, end: Double, source: Int32, uuid: UnsafeRawBufferPointer, blockID: Int64, index: Int64) {
        let number: Int32
        if let last = blockIDs.last, last == blockID {
            number = Int32(blockIDs.count - 1)
        } else if let known = numberByID[blockID] {
            number = known
        } else {
            number = Int32(blockIDs.count)
            numberByID[blockID] = number
            blockIDs.append(blockID)
        }
        starts.append(start)
        ends.append(end)
        sources.append(source)
        uuids.append(contentsOf: uuid)
        blockNumbers.append(number)
        entryIndices.append(Int(clamping: index))
    }

    /// Stores the sealed blocks, one per entry of `blockIDs`, in the same order.
    mutating func setSealedBlocks(_ blocks: [Data]) {
        sealedBlocks = blocks
    }

    /// Opens every block once and returns each row's primary value bits, in row order.
    /// - Throws: `HealthStoreError.tamperedRecord` for a block that fails authentication or an
    ///   entry that is not the row's; `.corruptDatabase` for a missing block or an index outside
    ///   its block.
    func primaryValues(cipher: RecordCipher, type: String) throws -> [UInt64] {
        guard count > 0 else { return [] }
        guard sealedBlocks.count == blockIDs.count else {
            throw HealthStoreError(.corruptDatabase, "a sample row points at a missing value block")
        }
        let blocks = try openBlocks(cipher: cipher, type: type)
        var values = [UInt64](repeating: 0, count: count)
        try uuids.withUnsafeBytes { uuidBytes in
            for row in 0..<count {
                let uuid = UnsafeRawBufferPointer(rebasing: uuidBytes[(16 * row)..<(16 * row + 16)])
                values[row] = try blocks[Int(blockNumbers[row])].valueBits(at: entryIndices[row], uuid: uuid,
                                                                            start: starts[row], end: ends[row])
            }
        }
        return values
    }

    /// Opens the blocks: on one thread for a few, on every core (at most 8) for many.
    private func openBlocks(cipher: RecordCipher, type: String) throws -> [ValueBlock] {
        let blockCount = sealedBlocks.count
        let workers = blockCount < Self.parallelThreshold ? 1 : max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, blockCount))
        if workers == 1 {
            return try sealedBlocks.map { try ValueBlock(opening: $0, type: type, cipher: cipher) }
        }
        let opened = Mutex<[Int: ValueBlock]>([:])
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var mine: [Int: ValueBlock] = [:]
            do {
                for number in stride(from: worker, to: blockCount, by: workers) {
                    mine[number] = try ValueBlock(opening: sealedBlocks[number], type: type, cipher: cipher)
                }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
            opened.withLock { $0.merge(mine) { first, _ in first } }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let byNumber = opened.withLock { $0 }
        return try (0..<blockCount).map { number in
            guard let block = byNumber[number] else {
                throw HealthStoreError(.corruptDatabase, "a value block could not be opened")
            }
            return block
        }
    }

    /// The number of blocks from which opening is spread over the cores.
    static let parallelThreshold = 4
}
