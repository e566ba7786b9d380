import Foundation

/// The compact, exactly lossless encoding of a route block's values (``RouteBlock`` format 2),
/// written by hand for this store: no package listed for the project encodes columns of
/// `Double`s this way.
///
/// Routes come from GPX text: coordinates with about six decimals, the other values with two to
/// six, timestamps in whole seconds. Such a value is exactly `Double(n) / 10^k` for a small
/// integer `n` (the parse rounds correctly, and so does the division; the encoder checks it bit
/// for bit, negative zero included, and keeps `|n|` within 2^53), so a field stores the
/// integers `n` at one scale `k` for the whole block, differenced once or twice from location
/// to location, packed at a fixed bit width or as varints: about 11 bytes a location instead
/// of 80. A value that does not read back bit for bit from any such `n` (negative zero, a value
/// computed in binary, anything else) is stored as its 8 raw bytes, so every finite or
/// non-finite bit pattern reads back identically.
///
/// Layout, after ``RouteBlock``'s format byte: the ten fields in ``RouteBlock``'s order, each
/// one section:
/// - `0` (raw): `count` little-endian bit patterns, 8 bytes each.
/// - `1` (constant): one bit pattern, every location's.
/// - `2` (decimal): scale `k` (0…22), order (1 or 2), packing (0 bits, 1 varints); varint `e`,
///   the number of escaped locations, their `e` positions as varint gaps (the first from -1)
///   and their `e` raw bit patterns; then for the other `m` locations' integers: the first
///   `min(order, m)` of the sequence's start (the first integer, and for order 2 the first
///   difference) as zigzag varints, and `m - order` differences of that order (of the
///   integers, or of their differences), as zigzag varints (packing 1) or (packing 0) as a
///   bit width (0…64), a zigzag varint minimum and the differences less the minimum at that
///   width, least significant bit first. Integer arithmetic wraps, so any bytes decode.
///
/// Decoding never traps: truncated, overlong or unknown bytes are `corruptDatabase`.
enum RouteBlockCodec {
    /// The powers of ten a scale can name; all are exact `Double`s.
    private static let powers: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]
    /// The largest scale the encoder tries (beyond it, `n` would pass 2^51 for any value ≥ 1e-3).
    private static let encoderScales = 18

    enum Mode: UInt8 {
        case raw = 0, constant = 1, decimal = 2
    }

    // MARK: Encoding

    /// The integer `n` with `Double(n) / 10^k` bit for bit `value`, if there is one within 2^51
    /// (`powers` is ``powers``, passed in so the hot loop does not look up a global).
    @inline(__always)
    static func scaled(_ value: Double, _ k: Int, _ powers: [Double]) -> Int64? {
        let power = powers[k]
        let product = value * power
        guard abs(product) < roundingLimit else { return nil }  // also refuses NaN and infinities
        // Rounds to the nearest integer (ties to even) below 2^51, without a call to libm.
        let integer = Int64((product + roundingMagic) - roundingMagic)
        guard (Double(integer) / power).bitPattern == value.bitPattern else { return nil }
        return integer
    }

    private static let roundingMagic = 6_755_399_441_055_744.0  // 1.5 × 2^52
    private static let roundingLimit = 2_251_799_813_685_248.0  // 2^51

    /// A scale at which `value` reads back and its integer there: `guess` if it does (one
    /// division for most values, which share their neighbours' scale), else the smallest above
    /// it, else the smallest below it; `nil` if none up to ``encoderScales`` does.
    @inline(__always)
    private static func findScale(_ value: Double, guess: Int, _ powers: [Double]) -> (scale: Int, integer: Int64)? {
        if let integer = scaled(value, guess, powers) { return (guess, integer) }
        for k in stride(from: guess + 1, through: encoderScales, by: 1) { if let integer = scaled(value, k, powers) { return (k, integer) } }
        for k in 0..<guess { if let integer = scaled(value, k, powers) { return (k, integer) } }
        return nil
    }

    /// Encodes `count` locations' values, `values[field * count + index]`, appending to `out`.
    static func encode(_ values: [Double], fields: Int, count: Int, into out: inout [UInt8]) {
        var scratch = Scratch(count: count)
        for field in 0..<fields {
            encodeField(values[(field * count)..<(field * count + count)], into: &out, scratch: &scratch)
        }
    }

    /// Buffers reused from field to field.
    private struct Scratch {
        var scales: [Int8]
        var found: [Int64]
        var integers: [Int64]
        var first: [Int64]
        var second: [Int64]
        var escapes: [Int]
        init(count: Int) {
            scales = [Int8](repeating: -1, count: count)
            found = []
            found.reserveCapacity(count)
            integers = []
            integers.reserveCapacity(count)
            first = []
            first.reserveCapacity(count)
            second = []
            second.reserveCapacity(count)
            escapes = []
        }
    }

    private static func encodeField(_ column: ArraySlice<Double>, into out: inout [UInt8], scratch: inout Scratch) {
        let count = column.count
        guard let head = column.first else { return appendRaw(column, to: &out) }
        if column.allSatisfy({ $0.bitPattern == head.bitPattern }) {
            out.append(Mode.constant.rawValue)
            appendBits(head.bitPattern, to: &out)
            return
        }
        // The scale: the smallest at which all but a sixty-fourth of the values read back (the
        // rest are escaped rather than widen every other value).
        var histogram = [Int](repeating: 0, count: encoderScales + 1)
        var unscaled = 0
        var guess = 0
        let powers = Self.powers
        scratch.found.removeAll(keepingCapacity: true)
        for (index, value) in zip(0..., column) {
            if let (k, integer) = findScale(value, guess: guess, powers) {
                histogram[k] += 1
                scratch.scales[index] = Int8(k)
                scratch.found.append(integer)
                guess = k
            } else {
                scratch.scales[index] = -1
                scratch.found.append(0)
                unscaled += 1
                // Mostly binary values: raw bytes are as small, and cheaper to find.
                if unscaled > count / 4 { return appendRaw(column, to: &out) }
            }
        }
        let allowed = count / 64
        var above = count - unscaled
        var scale = 0
        while scale < encoderScales {
            above -= histogram[scale]
            if above <= allowed { break }
            scale += 1
        }
        // An integer at a smaller scale times a power of ten reads back the same at this one
        // (both quotients are of exact integers by an exact power, rounded once).
        scratch.integers.removeAll(keepingCapacity: true)
        scratch.escapes.removeAll(keepingCapacity: true)
        for index in 0..<count {
            let k = Int(scratch.scales[index])
            if k >= 0, k <= scale {
                var integer = scratch.found[index]
                var fits = true
                for _ in k..<scale {
                    let (product, overflow) = integer.multipliedReportingOverflow(by: 10)
                    integer = product
                    fits = fits && !overflow
                }
                if fits, integer.magnitude <= 1 << 53 {
                    scratch.integers.append(integer)
                    continue
                }
            }
            scratch.escapes.append(index)
        }
        // Differences of the first and second order; the cheapest of four packings wins.
        let integers = scratch.integers
        scratch.first.removeAll(keepingCapacity: true)
        scratch.second.removeAll(keepingCapacity: true)
        for index in integers.indices.dropFirst() { scratch.first.append(integers[index] &- integers[index - 1]) }
        for index in scratch.first.indices.dropFirst() { scratch.second.append(scratch.first[index] &- scratch.first[index - 1]) }
        let firstTokens = scratch.first[...], secondTokens = scratch.second[...]
        // Order 2 also keeps the first difference in its header.
        let secondHeader = scratch.first.first.map { varintLength(zigzag($0)) } ?? 0
        let candidates: [(order: UInt8, packing: UInt8, size: Int)] = [
            (1, 0, bitPackedSize(firstTokens)), (1, 1, varintSize(firstTokens)),
            (2, 0, secondHeader + bitPackedSize(secondTokens)), (2, 1, secondHeader + varintSize(secondTokens)),
        ]
        guard let best = candidates.min(by: { $0.size < $1.size }), let start = integers.first else { return appendRaw(column, to: &out) }
        var size = 3 + varintLength(UInt64(scratch.escapes.count)) + 8 * scratch.escapes.count + varintLength(zigzag(start)) + best.size
        var previous = -1
        for index in scratch.escapes {
            size += varintLength(UInt64(index - previous))
            previous = index
        }
        if size >= count * 8 { return appendRaw(column, to: &out) }

        out.append(Mode.decimal.rawValue)
        out.append(UInt8(scale))
        out.append(best.order)
        out.append(best.packing)
        appendVarint(UInt64(scratch.escapes.count), to: &out)
        previous = -1
        for index in scratch.escapes {
            appendVarint(UInt64(index - previous), to: &out)
            previous = index
        }
        for index in scratch.escapes { appendBits(column[column.startIndex + index].bitPattern, to: &out) }
        appendVarint(zigzag(start), to: &out)
        if best.order == 2, let difference = scratch.first.first { appendVarint(zigzag(difference), to: &out) }
        let tokens = best.order == 1 ? firstTokens : secondTokens
        if best.packing == 0 { appendBitPacked(tokens, to: &out) } else { for token in tokens { appendVarint(zigzag(token), to: &out) } }
    }

    private static func appendRaw(_ column: ArraySlice<Double>, to out: inout [UInt8]) {
        out.append(Mode.raw.rawValue)
        for value in column { appendBits(value.bitPattern, to: &out) }
    }

    @inline(__always)
    private static func appendBits(_ bits: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    @inline(__always)
    private static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    @inline(__always)
    private static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    @inline(__always)
    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        LEB128.append(value, to: &out)
    }

    @inline(__always)
    private static func varintLength(_ value: UInt64) -> Int {
        // 1 + floor(bits / 7) for a value of `bits` significant bits (at least one byte).
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    private static func varintSize(_ tokens: ArraySlice<Int64>) -> Int {
        var size = 0
        for token in tokens { size += varintLength(zigzag(token)) }
        return size
    }

    /// The width and minimum of tokens packed at a fixed width.
    private static func packing(_ tokens: ArraySlice<Int64>) -> (width: Int, minimum: Int64) {
        guard var low = tokens.first else { return (0, 0) }
        var high = low
        for token in tokens {
            low = min(low, token)
            high = max(high, token)
        }
        let range = UInt64(bitPattern: high &- low)
        return (64 - range.leadingZeroBitCount, low)
    }

    private static func bitPackedSize(_ tokens: ArraySlice<Int64>) -> Int {
        let (width, minimum) = packing(tokens)
        return 1 + varintLength(zigzag(minimum)) + (tokens.count * width + 7) / 8
    }

    private static func appendBitPacked(_ tokens: ArraySlice<Int64>, to out: inout [UInt8]) {
        let (width, minimum) = packing(tokens)
        out.append(UInt8(width))
        appendVarint(zigzag(minimum), to: &out)
        guard width > 0 else { return }
        var accumulator: UInt64 = 0
        var filled = 0
        for token in tokens {
            let bits = UInt64(bitPattern: token &- minimum)
            accumulator |= bits << UInt64(filled)
            filled += width
            if filled >= 64 {
                appendBits(accumulator, to: &out)
                filled -= 64
                accumulator = filled > 0 ? bits >> UInt64(width - filled) : 0
            }
        }
        var remaining = filled
        while remaining > 0 {
            out.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            remaining -= 8
        }
    }

    // MARK: Decoding

    /// Decodes `count` locations' values of `fields` fields from `bytes[offset...]`, which must
    /// end exactly where the last field does; the result is `values[field * count + index]`.
    static func decode(_ bytes: [UInt8], from offset: Int, fields: Int, count: Int) throws -> [Double] {
        var reader = Reader(bytes: bytes, position: offset)
        var values = [Double](repeating: 0, count: fields * count)
        for field in 0..<fields {
            try decodeField(&reader, into: &values, base: field * count, count: count)
        }
        guard reader.position == bytes.count else { throw corrupt("has bytes after its last field") }
        return values
    }

    private static func corrupt(_ detail: String) -> HealthStoreError {
        HealthStoreError(.corruptDatabase, "a route block \(detail)")
    }

    private struct Reader {
        let bytes: [UInt8]
        var position: Int

        mutating func byte() throws -> UInt8 {
            guard position < bytes.count else { throw corrupt("ends early") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func bits() throws -> UInt64 {
            guard bytes.count - position >= 8 else { throw corrupt("ends early") }
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[position + index]) << UInt64(8 * index) }
            position += 8
            return value
        }

        mutating func varint() throws -> UInt64 {
            guard let value = try LEB128.read({ try byte() }) else { throw corrupt("has an overlong number") }
            return value
        }

        /// A varint that counts something of which there are at most `limit`.
        mutating func count(atMost limit: Int) throws -> Int {
            let value = try varint()
            guard value <= UInt64(limit) else { throw corrupt("has a count beyond its size") }
            return Int(value)
        }
    }

    private static func decodeField(_ reader: inout Reader, into values: inout [Double], base: Int, count: Int) throws {
        guard let mode = Mode(rawValue: try reader.byte()) else { throw corrupt("has an unknown field encoding") }
        switch mode {
        case .raw:
            for index in 0..<count { values[base + index] = Double(bitPattern: try reader.bits()) }
        case .constant:
            let value = Double(bitPattern: try reader.bits())
            for index in 0..<count { values[base + index] = value }
        case .decimal:
            try decodeDecimal(&reader, into: &values, base: base, count: count)
        }
    }

    private static func decodeDecimal(_ reader: inout Reader, into values: inout [Double], base: Int, count: Int) throws {
        let scale = Int(try reader.byte()), order = try reader.byte(), packing = try reader.byte()
        guard scale < powers.count, order == 1 || order == 2, packing <= 1 else { throw corrupt("has an unknown decimal encoding") }
        let power = powers[scale]
        let escapeCount = try reader.count(atMost: count)
        var escaped = [Bool](repeating: false, count: count)
        var escapes: [Int] = []
        escapes.reserveCapacity(escapeCount)
        var position = -1
        for _ in 0..<escapeCount {
            let gap = try reader.count(atMost: count)
            guard gap > 0, position + gap < count else { throw corrupt("has an escape out of place") }
            position += gap
            escaped[position] = true
            escapes.append(position)
        }
        for index in escapes { values[base + index] = Double(bitPattern: try reader.bits()) }
        let scaledCount = count - escapeCount
        guard scaledCount > 0 else { return }
        var integer = unzigzag(try reader.varint())
        var difference: Int64 = 0
        if order == 2, scaledCount > 1 { difference = unzigzag(try reader.varint()) }
        let tokenCount = max(0, scaledCount - Int(order))
        var tokens = TokenSource(packing: packing)
        try tokens.start(&reader, count: tokenCount)
        var seen = 0
        for index in 0..<count where !escaped[index] {
            if seen == 1 {
                if order == 1 { difference = try tokens.next(&reader) }
                integer &+= difference
            } else if seen > 1 {
                if order == 1 { difference = try tokens.next(&reader) } else { difference &+= try tokens.next(&reader) }
                integer &+= difference
            }
            values[base + index] = Double(integer) / power
            seen += 1
        }
        try tokens.finish(&reader)
    }

    /// Reads differences as varints or at a fixed bit width.
    private struct TokenSource {
        let packing: UInt8
        var width = 0
        var minimum: Int64 = 0
        var mask: UInt64 = 0
        var accumulator: UInt64 = 0
        var available = 0
        var limit = 0

        init(packing: UInt8) {
            self.packing = packing
        }

        mutating func start(_ reader: inout Reader, count: Int) throws {
            guard packing == 0 else { return }
            width = Int(try reader.byte())
            guard width <= 64 else { throw corrupt("has a bit width over 64") }
            minimum = unzigzag(try reader.varint())
            mask = width == 64 ? .max : (1 << UInt64(width)) - 1
            let size = (count * width + 7) / 8
            guard reader.bytes.count - reader.position >= size else { throw corrupt("ends early") }
            limit = reader.position + size
        }

        @inline(__always)
        mutating func next(_ reader: inout Reader) throws -> Int64 {
            if packing == 1 { return unzigzag(try reader.varint()) }
            if width == 0 { return minimum }
            // Fill up to 56 bits or more; a wider value takes its last bits from one more byte.
            while available <= 56, reader.position < limit {
                accumulator |= UInt64(reader.bytes[reader.position]) << UInt64(available)
                reader.position += 1
                available += 8
            }
            let bits: UInt64
            if available >= width {
                bits = accumulator & mask
                accumulator = width == 64 ? 0 : accumulator >> UInt64(width)
                available -= width
            } else {
                guard reader.position < limit else { throw corrupt("ends early") }
                let next = UInt64(reader.bytes[reader.position])
                reader.position += 1
                bits = (accumulator | next << UInt64(available)) & mask
                let used = width - available
                accumulator = next >> UInt64(used)
                available = 8 - used
            }
            return minimum &+ Int64(bitPattern: bits)
        }

        mutating func finish(_ reader: inout Reader) throws {
            if packing == 0, width > 0 { reader.position = limit }
        }
    }
}
