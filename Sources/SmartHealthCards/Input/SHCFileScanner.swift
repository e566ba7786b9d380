#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the credentials of a `.smart-health-card` file in its usual shape,
/// `{"verifiableCredential":["…","…",…]}` with JSON whitespace anywhere between tokens, without
/// building the document's tape.
///
/// A file of thousands of cards is read before any of them is verified, on one core; the tape
/// costs about as much per card as checking the card's JWS syntax, which runs on every core.
/// This scanner only looks for each string's closing quote (with `memchr`), so nearly all of
/// the reading is left to the parallel syntax check. It is a shortcut, never a second judge: a
/// document of any other shape gives nil and is read by FHIRCore's tape as before, and a
/// string found here is a JSON string with exactly these bytes only if every byte of it is a
/// JWS character (no escape, control character or non-ASCII byte), which the caller checks
/// before it uses the ranges (and otherwise reads the document with the tape, for its errors).
enum SHCFileScanner {
    /// The bytes of one string, `start..<end` (offsets into the document). A plain pair rather
    /// than `Range<Int>`: an array of ranges has the runtime look up `Int: Comparable` among the
    /// binary's protocol conformances once per process (about 1 M instructions in `health`, on
    /// one core before any card is verified).
    struct Span {
        /// The offset of the string's first byte.
        let start: Int
        /// The offset of its closing quote.
        let end: Int
    }

    /// The spans of the strings of the document's only member, `verifiableCredential`, an array
    /// of at least one string; nil when the document is not exactly of that shape (any other
    /// member, value or token, or nothing but whitespace after the closing brace).
    static func credentialRanges(in bytes: UnsafeBufferPointer<UInt8>) -> [Span]? {
        guard let base = bytes.baseAddress else { return nil }
        let end = bytes.count
        var index = 0
        func skipWhitespace() {
            while index < end {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
        /// Consumes `byte` after any whitespace; false when the next byte is something else.
        func expect(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard index < end, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard expect(UInt8(ascii: "{")), expect(UInt8(ascii: "\"")) else { return nil }
        let name: StaticString = "verifiableCredential\""
        guard end - index >= name.utf8CodeUnitCount,
              memcmp(base + index, name.utf8Start, name.utf8CodeUnitCount) == 0 else { return nil }
        index += name.utf8CodeUnitCount
        guard expect(UInt8(ascii: ":")), expect(UInt8(ascii: "[")) else { return nil }
        var ranges: [Span] = []
        // A rough guess of the count (cards are about 2 kB) keeps the array from regrowing often.
        ranges.reserveCapacity(min(end / 512 + 1, 1 << 16))
        while true {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            guard let quote = memchr(base + index, Int32(UInt8(ascii: "\"")), end - index) else { return nil }
            let close = UnsafeRawPointer(quote) - UnsafeRawPointer(base)
            ranges.append(Span(start: index, end: close))
            index = close + 1
            if expect(UInt8(ascii: ",")) { continue }
            guard expect(UInt8(ascii: "]")) else { return nil }
            break
        }
        guard expect(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        return index == end ? ranges : nil
    }
}
