import BenchZlib

/// The cards' floor: raw DEFLATE inflate (RFC 1951, `windowBits = -15`) straight through system
/// zlib, with no size checks or diagnostics beyond zlib's own, into a temporary buffer (no output
/// array is built). It is what any verifier must spend on the payload besides the signature.
enum RawInflateFloor {
    /// 64 KiB: far above any card's claims (the verifier's own limit is larger, and it grows).
    private static let capacity = 65_536

    /// Inflates `compressed`; returns the inflated size, or nil if zlib does not reach the end
    /// of the stream.
    static func inflatedSize(_ compressed: [UInt8]) -> Int? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { output -> Int? in
            var stream = z_stream()
            guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK,
                  let outputBase = output.baseAddress else { return nil }
            defer { inflateEnd(&stream) }
            return compressed.withUnsafeBufferPointer { input -> Int? in
                guard let inputBase = input.baseAddress else { return nil }
                stream.next_in = UnsafeMutablePointer(mutating: inputBase)
                stream.avail_in = UInt32(input.count)
                stream.next_out = outputBase
                stream.avail_out = UInt32(capacity)
                guard inflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return capacity - Int(stream.avail_out)
            }
        }
    }
}
