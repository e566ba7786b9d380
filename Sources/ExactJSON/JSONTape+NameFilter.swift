extension JSONTape {
    // MARK: The member name filters

    /// The bit of a member name in an object's name filter (``Node/memberFilter``), chosen by the
    /// name's length, first and last byte.
    /// - Parameters:
    ///   - length: The name's length in bytes.
    ///   - first: The name's first byte (0 for an empty name).
    ///   - last: The name's last byte (0 for an empty name).
    @inlinable @inline(__always) public static func nameFilterBit(length: Int, first: UInt8, last: UInt8) -> UInt64 {
        1 << UInt64((length &* 7 &+ Int(first) &+ Int(last) &* 3) & 63)
    }

    /// The bit of a member name in an object's name filter (``Node/memberFilter``).
    /// - Parameter name: The name's bytes (decoded, if it was written with escapes).
    @inlinable @inline(__always) public static func nameFilterBit(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let first = name.first, let last = name.last else { return nameFilterBit(length: 0, first: 0, last: 0) }
        return nameFilterBit(length: name.count, first: first, last: last)
    }

    /// The bit of a member name in an object's second filter (``Node/secondMemberFilter``), chosen
    /// by its length and its second and next-to-last bytes (independent of
    /// ``nameFilterBit(length:first:last:)`` for most names).
    /// - Parameter name: The name's bytes (decoded, if it was written with escapes).
    @inlinable @inline(__always) public static func secondNameFilterBit(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = name.count
        guard count > 1 else { return 1 << UInt64((Int(name.first ?? 0) &* 5 &+ count &* 3) & 63) }
        return 1 << UInt64((Int(name[1]) &* 5 &+ Int(name[count &- 2]) &* 11 &+ count &* 3) & 63)
    }
}
