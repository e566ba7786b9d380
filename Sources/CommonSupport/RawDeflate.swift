import CSystemZlib

/// Raw DEFLATE (RFC 1951, no zlib or gzip wrapper) through system zlib with `windowBits = -15`:
/// SMART Health Cards' payloads and SMART Health Links' `zip: DEF` files.
package enum RawDeflate {
    /// Why inflating failed.
    package enum InflateProblem: Error, Equatable {
        /// The output would exceed the limit (a zip bomb, or simply too large).
        case tooLarge(limit: Int)
        /// The stream is not valid raw DEFLATE.
        case corrupt
        /// The stream ended before its final block.
        case truncated
        /// Bytes follow the end of the DEFLATE stream.
        case trailingData
        /// zlib could not be initialised.
        case zlibUnavailable
    }

    /// Inflates a raw DEFLATE stream, producing at most `limit` bytes.
    ///
    /// Always terminates: every call to `inflate` either consumes input, produces output, or ends
    /// the loop.
    package static func inflate(_ input: [UInt8], limit: Int) throws(InflateProblem) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .zlibUnavailable
        }
        defer { inflateEnd(&stream) }
        let cap = max(0, limit)
        var output = [UInt8](repeating: 0, count: min(cap + 1, max(1024, input.count * 4)))
        var produced = 0
        let result: Result<Int, InflateProblem> = input.withUnsafeBufferPointer { inputBuffer in
            guard let inputBase = inputBuffer.baseAddress else { return .failure(.truncated) }
            stream.next_in = UnsafeMutablePointer(mutating: inputBase)
            stream.avail_in = UInt32(inputBuffer.count)
            while true {
                if produced == output.count {
                    if output.count > cap { return .failure(.tooLarge(limit: cap)) }
                    let grow = min(output.count, cap + 1 - output.count)
                    output.append(contentsOf: repeatElement(0, count: grow))
                }
                let availableIn = stream.avail_in
                let producedBefore = produced
                let status: Int32 = output.withUnsafeMutableBufferPointer { outputBuffer in
                    guard let outputBase = outputBuffer.baseAddress else { return Z_BUF_ERROR }
                    stream.next_out = outputBase + produced
                    stream.avail_out = UInt32(outputBuffer.count - produced)
                    let status = CSystemZlib.inflate(&stream, Z_FINISH)   // no sliding window when it completes in one call
                    produced = outputBuffer.count - Int(stream.avail_out)
                    return status
                }
                if produced > cap { return .failure(.tooLarge(limit: cap)) }
                switch status {
                case Z_STREAM_END:
                    return stream.avail_in == 0 ? .success(produced) : .failure(.trailingData)
                case Z_OK, Z_BUF_ERROR:
                    // Every round must consume input or produce output; otherwise the stream is stuck.
                    if stream.avail_in == availableIn && produced == producedBefore {
                        return .failure(stream.avail_in == 0 ? .truncated : .corrupt)
                    }
                default:
                    return .failure(.corrupt)
                }
            }
        }
        switch result {
        case .success(let count):
            output.removeSubrange(count...)
            return output
        case .failure(let problem):
            throw problem
        }
    }

    /// Compresses bytes as raw DEFLATE at the best compression level (smaller QR codes).
    package static func deflate(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return []
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(input.count))) + 16
        var output = [UInt8](repeating: 0, count: bound)
        var produced = 0
        input.withUnsafeBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.avail_in = UInt32(inputBuffer.count)
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                _ = CSystemZlib.deflate(&stream, Z_FINISH)
                produced = outputBuffer.count - Int(stream.avail_out)
            }
        }
        output.removeSubrange(produced...)
        return output
    }
}
