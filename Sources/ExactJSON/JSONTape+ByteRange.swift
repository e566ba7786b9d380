extension JSONTape {
    /// The bytes of the value at `node` exactly as the document writes it: from its first byte
    /// (a string's opening quote, a container's bracket) to its last, without surrounding
    /// whitespace. `Array(tape.bytes[tape.byteRange(of: node)])` is the value's own JSON, byte for
    /// byte, for example one resource of a Bundle.
    public func byteRange(of node: Int) -> Range<Int> {
        let first = nodes[node]
        let lower = Int(first.start) - ((first.kind == .string || first.kind == .escapedString) ? 1 : 0)
        // Walk down the chain of last children to a scalar or an empty container, then close
        // every container on the way back up: each closing bracket is the first byte after its
        // last child that is not whitespace.
        var chain: [Int] = []
        var index = node
        var upper: Int
        while true {
            let item = nodes[index]
            switch item.kind {
            case .string, .escapedString:
                upper = Int(item.start) + Int(item.length) + 1
            case .number, .true, .false, .null:
                upper = Int(item.start) + Int(item.length)
            case .array, .object:
                if item.length == 0 {
                    upper = closingBracket(after: Int(item.start) + 1)
                } else {
                    chain.append(index)
                    var child = index + 1
                    var last = child
                    for _ in 0..<Int(item.length) {
                        if item.kind == .object { child += 1 }   // the member's name
                        last = child
                        child = Int(nodes[child].end)
                    }
                    index = last
                    continue
                }
            }
            break
        }
        for _ in chain { upper = closingBracket(after: upper) }
        return lower..<upper
    }

    /// The index just past the first `]` or `}` at or after `offset`, stepping over whitespace.
    private func closingBracket(after offset: Int) -> Int {
        var position = offset
        while position < bytes.count, bytes[position] != UInt8(ascii: "]"), bytes[position] != UInt8(ascii: "}") { position += 1 }
        return min(position + 1, bytes.count)
    }
}
