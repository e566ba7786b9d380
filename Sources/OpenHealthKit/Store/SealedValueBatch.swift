import Crypto
import Dispatch
import Foundation
import Synchronization

/// The sealed values of many quantity rows in flat buffers, for statistics: gathered inside a
/// read transaction without a `Data` per row, then opened in parallel on every core.
///
/// Each row keeps its UUID and sealed record back to back in `bytes`; opening rebuilds the
/// row's `RecordContext` (UUID, kind, start, end, type) in a buffer reused per worker, so only
/// AES-GCM's own output is allocated per row.
struct SealedValueBatch: Sendable {
    private(set) var starts: [Double] = []
    private(set) var ends: [Double] = []
    private(set) var sources: [Int32] = []
    /// Offsets into `bytes`: row i's UUID starts at `offsets[i]`, its sealed record at
    /// `offsets[i] + 16`, and ends at `offsets[i + 1]`.
    private var offsets: [Int] = [0]
    private var bytes: [UInt8] = []

    var count: Int { starts.count }

    /// Adds a row: its clear start, end, source index and UUID (16 bytes), and its sealed record.
    mutating func append(start: Double, end: Double, source: Int32, uuid: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer) {
        starts.append(start)
        ends.append(end)
        sources.append(source)
        bytes.append(contentsOf: uuid)
        bytes.append(contentsOf: sealed)
        offsets.append(bytes.count)
    }

    /// Opens every record and returns its primary value bits, in row order.
    /// - Throws: `HealthStoreError.tamperedRecord` or `.corruptDatabase` for the first bad row.
    func primaryValues(cipher: RecordCipher, type: String) throws -> [UInt64] {
        let count = self.count
        guard count > 0 else { return [] }
        let workers = count < 4_096 ? 1 : max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let chunk = (count + workers - 1) / workers
        let typeBytes = Array(type.utf8)
        let failure = Mutex<(any Error)?>(nil)
        var values = [UInt64](repeating: 0, count: count)
        values.withUnsafeMutableBufferPointer { output in
            nonisolated(unsafe) let output = output
            bytes.withUnsafeBytes { storage in
                nonisolated(unsafe) let storage = storage
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    let range = (worker * chunk)..<min(count, (worker + 1) * chunk)
                    var context = [UInt8](repeating: 0, count: 33 + typeBytes.count)
                    context.replaceSubrange(33..., with: typeBytes)
                    context[16] = UInt8(truncatingIfNeeded: SampleKind.quantity.rawValue)
                    do {
                        for index in range {
                            let base = offsets[index]
                            let uuid = UnsafeRawBufferPointer(rebasing: storage[base..<(base + 16)])
                            let sealed = UnsafeRawBufferPointer(rebasing: storage[(base + 16)..<offsets[index + 1]])
                            for position in 0..<16 { context[position] = uuid[position] }
                            withUnsafeBytes(of: starts[index].bitPattern.littleEndian) { context.replaceSubrange(17..<25, with: $0) }
                            withUnsafeBytes(of: ends[index].bitPattern.littleEndian) { context.replaceSubrange(25..<33, with: $0) }
                            let plaintext = try cipher.open(sealed, context: context)
                            output[index] = try SamplePayload.primaryBits(of: plaintext)
                        }
                    } catch {
                        failure.withLock { if $0 == nil { $0 = error } }
                    }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return values
    }
}
