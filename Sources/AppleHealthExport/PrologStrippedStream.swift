import Foundation

/// The export's bytes with the document type declaration blanked out (each byte a space, line
/// breaks kept, so line numbers stay right): Foundation's XMLParser on Linux crashes on an
/// `ATTLIST` declaration with a `#REQUIRED` attribute, which every Apple export's DTD has, and
/// the importer needs nothing from the DTD (entity declarations are refused before this).
final class PrologStrippedStream: InputStream {
    private var head: [UInt8]
    private var headOffset = 0
    private let source: any ExportByteSource
    private var status: Stream.Status = .notOpen
    /// Bytes handed to the parser so far.
    private(set) var bytesRead: UInt64 = 0
    /// Why reading the source failed (the parser only sees the end of its input).
    private(set) var readError: (any Error)?

    /// - Parameters:
    ///   - head: the file's first bytes, as read.
    ///   - source: the file, positioned just after `head`.
    init(head: Data, source: any ExportByteSource) {
        self.head = Self.blankDoctype([UInt8](head))
        self.source = source
        super.init(data: Data())
    }

    static func blankDoctype(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let doctype = Array("<!DOCTYPE".utf8)
        guard let start = find(doctype, in: bytes, from: 0) else { return bytes }
        var end: Int?
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ">") { end = index; break }
            if bytes[index] == UInt8(ascii: "[") {
                end = find(Array("]>".utf8), in: bytes, from: index).map { $0 + 1 }
                if end == nil, let close = find(Array("]".utf8), in: bytes, from: index) {
                    // "]" then whitespace then ">".
                    var cursor = close + 1
                    while cursor < bytes.count, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(bytes[cursor]) {
                        cursor += 1
                    }
                    if cursor < bytes.count, bytes[cursor] == UInt8(ascii: ">") { end = cursor }
                }
                break
            }
            index += 1
        }
        guard let end else { return bytes }
        for position in start...end where bytes[position] != UInt8(ascii: "\n") && bytes[position] != UInt8(ascii: "\r") {
            bytes[position] = UInt8(ascii: " ")
        }
        return bytes
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard bytes.count >= pattern.count, from <= bytes.count - pattern.count else { return nil }
        for index in from...(bytes.count - pattern.count) where bytes[index] == pattern[0] {
            if Array(bytes[index..<index + pattern.count]) == pattern { return index }
        }
        return nil
    }

    override func open() { status = .open }

    override func close() {
        status = .closed
        source.close()
    }

    override var streamStatus: Stream.Status { status }

    override var hasBytesAvailable: Bool { status == .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard len > 0 else { return 0 }
        if headOffset < head.count {
            let count = min(len, head.count - headOffset)
            head.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                buffer.update(from: base + headOffset, count: count)
            }
            headOffset += count
            if headOffset == head.count { head = [] ; headOffset = 0 }
            bytesRead += UInt64(count)
            return count
        }
        do {
            guard let data = try source.read(upToCount: len), !data.isEmpty else { return 0 }
            data.copyBytes(to: buffer, count: data.count)
            bytesRead += UInt64(data.count)
            return data.count
        } catch {
            readError = error
            return -1
        }
    }
}
