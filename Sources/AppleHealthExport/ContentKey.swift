import CommonSupport
import Crypto
import Foundation

/// The first 128 bits of an element's content digest: a compact key for sets.
struct ContentKey: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    init(_ digest: [UInt8]) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 where index < digest.count { high = high << 8 | UInt64(digest[index]) }
        for index in 8..<16 where index < digest.count { low = low << 8 | UInt64(digest[index]) }
        self.high = high
        self.low = low
    }
}

extension ExportElement {
    /// SHA-256 of the element's name, attributes (sorted) and children: the same for the same
    /// content however the file orders or indents it.
    var contentDigest: [UInt8] {
        SHA256.hash(data: contentBytes).withUnsafeBytes { Array($0) }
    }

    /// The bytes ``contentDigest`` hashes: the name, then NUL key SOH value for each attribute by
    /// key, STX, the children the same way, ETX.
    var contentBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        appendContent(to: &bytes)
        return bytes
    }

    private func appendContent(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: name.utf8)
        let spans = self.spans
        attributeBytes.withUnsafeBufferPointer { source in
            func key(_ span: Span) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: source[Int(span.nameStart)..<Int(span.valueStart)])
            }
            func append(_ span: Span) {
                bytes.append(0)
                bytes.append(contentsOf: key(span))
                bytes.append(1)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[Int(span.valueStart)..<Int(span.valueEnd)]))
            }
            guard spans.allSatisfy({ key($0).allSatisfy { $0 < 0x80 } }) else {
                // Names beyond ASCII: in the order `String` gives them.
                for span in spans.sorted(by: { String(decoding: key($0), as: UTF8.self) < String(decoding: key($1), as: UTF8.self) }) {
                    append(span)
                }
                return
            }
            // ASCII names: by their bytes (the same order), sorted in place by insertion (a start tag has few attributes).
            withUnsafeTemporaryAllocation(of: Span.self, capacity: max(1, spans.count)) { order in
                var count = 0
                for span in spans {
                    let name = key(span)
                    var index = count
                    while index > 0, name.lexicographicallyPrecedes(key(order[index - 1])) {
                        order[index] = order[index - 1]
                        index -= 1
                    }
                    order[index] = span
                    count += 1
                }
                for index in 0..<count { append(order[index]) }
            }
        }
        bytes.append(2)
        for child in children { child.appendContent(to: &bytes) }
        bytes.append(3)
    }
}

extension ContentKey {
    /// Lowercase hex of a digest (`HexText.encode`).
    static func hex(_ digest: [UInt8]) -> String {
        HexText.encode(digest)
    }
}
