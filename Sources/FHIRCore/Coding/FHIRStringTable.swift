/// The strings made while one document is decoded, so that a text that recurs (a code system
/// URI, the reference to the patient, a display text) becomes one `String` shared by every
/// value that holds it instead of a new allocation each time. In a Synthea bundle, 6,442 of the
/// 7,810 strings longer than 15 bytes (the ones Swift allocates) repeat an earlier one.
///
/// A direct-mapped cache keyed by the string's bytes in the document: a slot remembers where its
/// string's bytes are, so a lookup compares document bytes with document bytes, and a miss
/// replaces the slot. Sharing is invisible to users: `String` has value semantics. One table
/// belongs to one chain of readers (``FHIRObjectReader`` is not `Sendable`), so it needs no lock.
@usableFromInline final class FHIRStringTable {
    /// One cached string and where its bytes are in the document (`length` 0: empty slot).
    struct Slot {
        var start: Int
        var length: Int
        var string: String
    }

    /// Strings of at most this many bytes are small (stored inline, no allocation): not cached.
    @usableFromInline static let smallStringLimit = 15
    /// Longer strings (narrative, notes) rarely repeat: not cached.
    @usableFromInline static let largeStringLimit = 256

    /// The document: the table holds it for the readers that share the table.
    @usableFromInline let document: JSONTape
    @usableFromInline let tape: Unmanaged<JSONTape>
    let slots: UnsafeMutablePointer<Slot>
    let mask: Int
    /// The taken marks of members past the 64th, by object node (see ``FHIRObjectReader``): the
    /// latest reader made over an object owns its marks.
    var marksBeyond64: [Int: [Bool]] = [:]

    /// A table for one document, sized by its node count (16 to 2,048 slots).
    @usableFromInline init(tape: JSONTape) {
        document = tape
        self.tape = Unmanaged.passUnretained(tape)
        var count = 16
        let wanted = tape.nodes.count / 32
        while count < wanted && count < 2_048 { count &*= 2 }
        mask = count &- 1
        slots = UnsafeMutablePointer<Slot>.allocate(capacity: count)
        slots.initialize(repeating: Slot(start: 0, length: 0, string: ""), count: count)
    }

    /// Clears the marks of `count` members past the 64th of the object at `object`.
    @usableFromInline func clearMarks(object: Int, count: Int) {
        marksBeyond64[object] = Array(repeating: false, count: count)
    }

    @usableFromInline func mark(object: Int, _ index: Int) {
        marksBeyond64[object]?[index] = true
    }

    @usableFromInline func isMarked(object: Int, _ index: Int) -> Bool {
        marksBeyond64[object]?[index] ?? false
    }

    deinit {
        slots.deinitialize(count: mask &+ 1)
        slots.deallocate()
    }

    /// The string of the unescaped string node's `length` bytes at `start` (between
    /// ``smallStringLimit`` and ``largeStringLimit`` bytes): the cached one if the same bytes were
    /// read before, else a new one, which is then cached.
    @usableFromInline func string(start: Int, length: Int) -> String {
        tape._withUnsafeGuaranteedRef { tape in
            tape.bytes.withUnsafeBufferPointer { bytes -> String in
                guard let base = bytes.baseAddress, start >= 0, length >= 8, start &+ length <= bytes.count else {
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<start + length]), as: UTF8.self)
                }
                let text = UnsafeRawPointer(base + start)
                let first = text.loadUnaligned(as: UInt64.self)
                let middle = text.loadUnaligned(fromByteOffset: (length &- 8) / 2, as: UInt64.self)
                let last = text.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
                var hash = first &* 0x9E37_79B9_7F4A_7C15
                hash ^= (middle &* 0xC2B2_AE3D_27D4_EB4F) ^ (last &* 0x1656_67B1_9E37_79F9) ^ UInt64(length)
                hash ^= hash >> 31
                hash ^= hash >> 17
                let slot = slots + Int(truncatingIfNeeded: hash & UInt64(mask))
                if slot.pointee.length == length,
                   JSONTape.bytesEqual(base + slot.pointee.start, base + start, count: length) {
                    return slot.pointee.string
                }
                let string = String(decoding: UnsafeBufferPointer(start: base + start, count: length), as: UTF8.self)
                slot.pointee = Slot(start: start, length: length, string: string)
                return string
            }
        }
    }
}
