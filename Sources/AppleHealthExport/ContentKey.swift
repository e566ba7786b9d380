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
        var hasher = SHA256()
        func feed(_ element: ExportElement) {
            hasher.update(data: Data(element.name.utf8))
            for (key, value) in element.attributes.sorted(by: { $0.key < $1.key }) {
                hasher.update(data: Data("\u{0}\(key)\u{1}\(value)".utf8))
            }
            hasher.update(data: Data("\u{2}".utf8))
            for child in element.children { feed(child) }
            hasher.update(data: Data("\u{3}".utf8))
        }
        feed(self)
        return Array(hasher.finalize())
    }
}
