/// One row or column of a symbol as a bit set: bit i is module i (1 = dark). Three words hold
/// the 177 modules of version 40; bits past the symbol are 0, that is light, like the quiet zone.
/// Whole-line bit operations let the mask penalty (N1–N4) be scored a word at a time.
struct QRBitRow: Sendable, Hashable {
    var w0: UInt64 = 0
    var w1: UInt64 = 0
    var w2: UInt64 = 0

    static let zero = QRBitRow()

    /// The first `count` bits set.
    static func ones(_ count: Int) -> QRBitRow {
        func word(_ index: Int) -> UInt64 {
            let n = count - 64 * index
            return n >= 64 ? ~0 : n <= 0 ? 0 : (1 << UInt64(n)) - 1
        }
        return QRBitRow(w0: word(0), w1: word(1), w2: word(2))
    }

    @inline(__always)
    subscript(index: Int) -> Bool {
        get {
            let shift = UInt64(index & 63)
            switch index >> 6 {
            case 0: return (w0 >> shift) & 1 != 0
            case 1: return (w1 >> shift) & 1 != 0
            default: return (w2 >> shift) & 1 != 0
            }
        }
        set {
            let bit: UInt64 = 1 << UInt64(index & 63)
            switch index >> 6 {
            case 0: w0 = newValue ? w0 | bit : w0 & ~bit
            case 1: w1 = newValue ? w1 | bit : w1 & ~bit
            default: w2 = newValue ? w2 | bit : w2 & ~bit
            }
        }
    }

    /// Bit i of the result is bit i + k of `row` (0 < k < 64): looking k modules ahead.
    @inline(__always)
    static func >> (row: QRBitRow, k: Int) -> QRBitRow {
        let s = UInt64(k)
        let t = UInt64(64 - k)
        return QRBitRow(w0: row.w0 >> s | row.w1 << t, w1: row.w1 >> s | row.w2 << t, w2: row.w2 >> s)
    }

    /// Bit i of the result is bit i − k of `row` (0 < k < 64), 0 below: looking k modules back.
    @inline(__always)
    static func << (row: QRBitRow, k: Int) -> QRBitRow {
        let s = UInt64(k)
        let t = UInt64(64 - k)
        return QRBitRow(w0: row.w0 << s, w1: row.w1 << s | row.w0 >> t, w2: row.w2 << s | row.w1 >> t)
    }

    @inline(__always)
    static func & (a: QRBitRow, b: QRBitRow) -> QRBitRow { QRBitRow(w0: a.w0 & b.w0, w1: a.w1 & b.w1, w2: a.w2 & b.w2) }

    @inline(__always)
    static func | (a: QRBitRow, b: QRBitRow) -> QRBitRow { QRBitRow(w0: a.w0 | b.w0, w1: a.w1 | b.w1, w2: a.w2 | b.w2) }

    @inline(__always)
    static func ^ (a: QRBitRow, b: QRBitRow) -> QRBitRow { QRBitRow(w0: a.w0 ^ b.w0, w1: a.w1 ^ b.w1, w2: a.w2 ^ b.w2) }

    @inline(__always)
    static prefix func ~ (a: QRBitRow) -> QRBitRow { QRBitRow(w0: ~a.w0, w1: ~a.w1, w2: ~a.w2) }

    /// The number of set bits.
    @inline(__always)
    var count: Int { w0.nonzeroBitCount + w1.nonzeroBitCount + w2.nonzeroBitCount }
}
