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
        // The bytes hashed, gathered into one buffer: name, then NUL key SOH value for each
        // attribute by key, STX, the children the same way, ETX.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        func feed(_ element: ExportElement) {
            bytes.append(contentsOf: element.name.utf8)
            element.forEachAttributeSortedByName { key, value in
                bytes.append(0)
                bytes.append(contentsOf: key)
                bytes.append(1)
                bytes.append(contentsOf: value)
            }
            bytes.append(2)
            for child in element.children { feed(child) }
            bytes.append(3)
        }
        feed(self)
        return Array(SHA256.hash(data: bytes))
    }
}

extension ExportElement {
    /// The attributes' names and values, by name as `String` orders names: by bytes when every
    /// name is ASCII (the same order), through strings otherwise.
    func forEachAttributeSortedByName(_ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void) {
        let bytes = attributeBytes
        func key(_ span: Span) -> ArraySlice<UInt8> { bytes[Int(span.nameStart)..<Int(span.valueStart)] }
        func value(_ span: Span) -> ArraySlice<UInt8> { bytes[Int(span.valueStart)..<Int(span.valueEnd)] }
        let ascii = spans.allSatisfy { key($0).allSatisfy { $0 < 0x80 } }
        let sorted = ascii ? spans.sorted { key($0).lexicographicallyPrecedes(key($1)) }
            : spans.sorted { String(decoding: key($0), as: UTF8.self) < String(decoding: key($1), as: UTF8.self) }
        for span in sorted { body(key(span), value(span)) }
    }
}

extension ContentKey {
    /// Lowercase hex of a digest (`HexText.encode`).
    static func hex(_ digest: [UInt8]) -> String {
        HexText.encode(digest)
    }
}
