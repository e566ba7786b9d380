import Foundation

/// Values made from some attributes of an element (a source revision from `sourceName`, `sourceVersion` and
/// `device`, a type from `type`…), found again by those attributes' bytes: no string is made and none hashed.
///
/// A front for the importer's caches by text: a value is stored only as the slower path made it from the same
/// bytes, and equal bytes always make equal text, so a hit returns what that path would have. Exports repeat a few
/// sources, devices and types in runs, so the most recent hit is compared first; at most ``capacity`` keys are
/// kept, the oldest replaced.
struct AttributeValueCache<Value> {
    /// A key: each attribute's value length (-1 when absent), and the present values' bytes one after the other.
    private struct Key {
        var lengths: [Int32]
        var bytes: [UInt8]
    }

    /// The attributes the key is made of.
    let attributes: [String]
    let capacity: Int
    private var keys: [Key] = []
    private var values: [Value] = []
    /// The entry found last, compared first.
    private var recent = 0
    /// The entry replaced next once ``capacity`` are kept.
    private var next = 0
    /// The spans of the element being looked up (reused).
    private var spans: [ExportElement.Span?]

    init(_ attributes: [String], capacity: Int = 16) {
        self.attributes = attributes
        self.capacity = max(1, capacity)
        spans = Array(repeating: nil, count: attributes.count)
    }

    /// The value stored for the element's attributes, or the one `make` gives (then stored).
    mutating func value(in element: ExportElement, make: () throws -> Value) rethrows -> Value {
        for index in attributes.indices { spans[index] = element.span(named: attributes[index]) }
        if let found = find(in: element.attributeBytes) {
            recent = found
            return values[found]
        }
        let value = try make()
        var key = Key(lengths: [], bytes: [])
        key.lengths.reserveCapacity(spans.count)
        for span in spans {
            guard let span else {
                key.lengths.append(-1)
                continue
            }
            key.lengths.append(span.valueEnd - span.valueStart)
            key.bytes.append(contentsOf: element.attributeBytes[Int(span.valueStart)..<Int(span.valueEnd)])
        }
        if keys.count < capacity {
            keys.append(key)
            values.append(value)
            recent = keys.count - 1
        } else {
            keys[next] = key
            values[next] = value
            recent = next
            next = (next + 1) % capacity
        }
        return value
    }

    /// The entry whose key is the values of ``spans`` in `source`, the most recent one compared first.
    private func find(in source: [UInt8]) -> Int? {
        source.withUnsafeBufferPointer { source in
            if recent < keys.count, Self.matches(keys[recent], spans, source) { return recent }
            for entry in keys.indices where entry != recent && Self.matches(keys[entry], spans, source) { return entry }
            return nil
        }
    }

    private static func matches(_ key: Key, _ spans: [ExportElement.Span?], _ source: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.lengths.count == spans.count else { return false }
        return key.bytes.withUnsafeBufferPointer { bytes in
            var offset = 0
            for index in spans.indices {
                let length = Int(key.lengths[index])
                guard let span = spans[index] else {
                    if length != -1 { return false }
                    continue
                }
                let start = Int(span.valueStart)
                guard length == Int(span.valueEnd) - start, offset + length <= bytes.count, start + length <= source.count else { return false }
                if length > 0 {
                    guard let value = source.baseAddress, let wanted = bytes.baseAddress,
                          memcmp(value + start, wanted + offset, length) == 0 else { return false }
                }
                offset += length
            }
            return true
        }
    }
}
