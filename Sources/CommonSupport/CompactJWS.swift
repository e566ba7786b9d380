#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A compact-serialization JWS (RFC 7515 §7.1) split into its three decoded segments, with the
/// bytes the signature covers. Checks only the syntax: three non-empty base64url segments, no
/// padding. SMART Health Cards (rule 13) and FhirBlocks' JWT assertions both read JWS through it.
package struct CompactJWS: Sendable {
    /// Why the text is not a compact JWS.
    package enum Problem: Error, Equatable, Sendable {
        /// Not three segments separated by dots.
        case segmentCount(Int)
        /// An empty segment (0 header, 1 payload, 2 signature).
        case emptySegment(Int)
        /// A character outside base64url at this offset.
        case invalidCharacter(offset: Int)
        /// A `=` padding character at this offset.
        case padding(offset: Int)
        /// A segment whose length no byte string encodes to.
        case invalidLength(segment: Int)
        /// A segment whose last character carries non-zero bits beyond its last byte.
        case nonCanonical(segment: Int)
    }

    package let text: [UInt8]
    package let header: [UInt8]
    package let payload: [UInt8]
    package let signature: [UInt8]
    /// `ASCII(header_b64 + "." + payload_b64)`.
    package let signingInput: ArraySlice<UInt8>

    package init(_ text: [UInt8]) throws(Problem) {
        // Find the two dots with memchr (this runs on every verification).
        let dots: (Int, Int, Bool)? = text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let firstDot = memchr(base, Int32(UInt8(ascii: ".")), buffer.count) else { return nil }
            let first = UnsafeRawPointer(firstDot) - UnsafeRawPointer(base)
            guard let secondDot = memchr(base + first + 1, Int32(UInt8(ascii: ".")), buffer.count - first - 1) else { return nil }
            let second = UnsafeRawPointer(secondDot) - UnsafeRawPointer(base)
            let third = memchr(base + second + 1, Int32(UInt8(ascii: ".")), buffer.count - second - 1) != nil
            return (first, second, third)
        }
        guard let (first, second, extraDot) = dots, !extraDot, first > 0, second > first + 1, second + 1 < text.count else {
            throw CompactJWS.diagnose(text)
        }
        let decoded: (header: [UInt8], payload: [UInt8], signature: [UInt8])? = text.withUnsafeBufferPointer { buffer in
            guard let header = Base64URL.decodeStrict(UnsafeBufferPointer(rebasing: buffer[0..<first])),
                  let payload = Base64URL.decodeStrict(UnsafeBufferPointer(rebasing: buffer[(first + 1)..<second])),
                  let signature = Base64URL.decodeStrict(UnsafeBufferPointer(rebasing: buffer[(second + 1)...])) else { return nil }
            return (header, payload, signature)
        }
        guard let decoded else { throw CompactJWS.diagnose(text) }
        self.text = text
        header = decoded.header
        payload = decoded.payload
        signature = decoded.signature
        signingInput = text[0..<second]
    }

    /// Checks the syntax alone, without decoding or allocating: exactly the text that
    /// ``init(_:)`` accepts passes, and a text it refuses throws the same problem.
    ///
    /// A text that passes (nearly every card of a file) is read once: its two dots are found
    /// with `memchr` and each segment's bytes are classified through a 256-entry table
    /// (``isWellFormed(_:)``). Only a text that fails is walked again, byte by byte, for its
    /// first problem.
    package static func validate(_ text: UnsafeBufferPointer<UInt8>) throws(Problem) {
        if isWellFormed(text) { return }
        if let problem = firstProblem(text) { throw problem }
    }

    /// Whether `text` is three non-empty, unpadded, canonical base64url segments: the table-driven
    /// form of ``firstProblem(_:)`` (which it agrees with, property-tested), one pass per segment.
    package static func isWellFormed(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        let count = text.count
        let dot = Int32(UInt8(ascii: "."))
        guard let firstDot = memchr(base, dot, count) else { return false }
        let first = UnsafeRawPointer(firstDot) - UnsafeRawPointer(base)
        guard let secondDot = memchr(base + first + 1, dot, count - first - 1) else { return false }
        let second = UnsafeRawPointer(secondDot) - UnsafeRawPointer(base)
        guard memchr(base + second + 1, dot, count - second - 1) == nil else { return false }
        return nonAlphabet.withUnsafeBufferPointer { table in
            isSegment(base, 0..<first, table) && isSegment(base, (first + 1)..<second, table)
                && isSegment(base, (second + 1)..<count, table)
        }
    }

    /// 1 for each byte outside the base64url alphabet, 0 for the alphabet's 64 characters.
    private static let nonAlphabet: [UInt8] = (0...255).map { Base64URL.isAlphabet(UInt8($0)) ? 0 : 1 }

    /// Whether `base[range]` is a non-empty, canonical base64url segment: its bytes' table entries
    /// OR-ed together (four at a time, no branch per byte), then its length and last character.
    @inline(__always)
    private static func isSegment(_ base: UnsafePointer<UInt8>, _ range: Range<Int>, _ table: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !range.isEmpty, range.count % 4 != 1 else { return false }
        var outside: UInt8 = 0
        var index = range.lowerBound
        while index &+ 4 <= range.upperBound {
            outside |= table[Int(base[index])] | table[Int(base[index &+ 1])]
                | table[Int(base[index &+ 2])] | table[Int(base[index &+ 3])]
            index &+= 4
        }
        while index < range.upperBound {
            outside |= table[Int(base[index])]
            index &+= 1
        }
        return outside == 0 && Base64URL.isCanonicalEnd(base[range.upperBound - 1], count: range.count)
    }

    /// Finds the first syntax problem of text that failed the fast path.
    private static func diagnose(_ text: [UInt8]) -> Problem {
        text.withUnsafeBufferPointer { firstProblem($0) } ?? .invalidLength(segment: 0)
    }

    /// The first syntax problem of `text`, or nil when it is three non-empty, unpadded, canonical
    /// base64url segments: the byte-by-byte check that says which problem and where (also the
    /// reference that ``isWellFormed(_:)`` is tested against).
    package static func firstProblem(_ text: UnsafeBufferPointer<UInt8>) -> Problem? {
        var dots = (-1, -1)
        var dotCount = 0
        for (offset, byte) in text.enumerated() {
            if byte == UInt8(ascii: ".") {
                if dotCount == 0 { dots.0 = offset } else if dotCount == 1 { dots.1 = offset }
                dotCount += 1
            } else if !Base64URL.isAlphabet(byte) {
                return byte == UInt8(ascii: "=") ? .padding(offset: offset) : .invalidCharacter(offset: offset)
            }
        }
        guard dotCount == 2 else { return .segmentCount(dotCount + 1) }
        for segment in 0..<3 {
            let range = segment == 0 ? 0..<dots.0 : segment == 1 ? (dots.0 + 1)..<dots.1 : (dots.1 + 1)..<text.count
            if range.isEmpty { return .emptySegment(segment) }
            if range.count % 4 == 1 { return .invalidLength(segment: segment) }
            if !Base64URL.isCanonicalEnd(text[range.upperBound - 1], count: range.count) { return .nonCanonical(segment: segment) }
        }
        return nil
    }
}
