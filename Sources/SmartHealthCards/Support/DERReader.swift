/// A minimal DER (X.690) reader: enough to walk an X.509 certificate.
struct DERReader {
    struct Element {
        var tag: UInt8
        var content: ArraySlice<UInt8>
    }

    struct Malformed: Error {}

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { bytes.isEmpty }

    /// The tag of the next element, if any.
    var peekTag: UInt8? { bytes.first }

    mutating func read() throws(Malformed) -> Element {
        guard let tag = bytes.popFirst(), let first = bytes.popFirst() else { throw Malformed() }
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count > 0, count <= 4 else { throw Malformed() }
            for _ in 0..<count {
                guard let byte = bytes.popFirst() else { throw Malformed() }
                length = length << 8 | Int(byte)
            }
        }
        guard length <= bytes.count else { throw Malformed() }
        let content = bytes.prefix(length)
        bytes = bytes.dropFirst(length)
        return Element(tag: tag, content: content)
    }

    /// Reads the next element and checks its tag.
    mutating func read(tag: UInt8) throws(Malformed) -> Element {
        let element = try read()
        guard element.tag == tag else { throw Malformed() }
        return element
    }
}
