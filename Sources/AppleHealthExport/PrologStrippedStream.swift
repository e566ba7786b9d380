import Foundation

/// The bytes of export.xml as ``ExportBodyReader`` reads them: the prolog (XML declaration,
/// comments, processing instructions, the document type declaration with its internal subset,
/// however long up to ``ExportProlog/maximumSize``) is read and checked by ``ExportProlog`` when
/// the stream is opened, and the document type declaration left out but for its line breaks
/// (the importer needs nothing from it); the file is handed on in chunks of at most
/// ``chunkSize`` bytes, so memory stays bounded whatever the file's size.
final class PrologStrippedStream {
    /// The most bytes read from the source at once.
    static let chunkSize = 64 << 10
    /// The bytes read before the body reader asked, from the root element's `<` on.
    private var head: [UInt8]?
    /// How much of ``head`` was handed on (in pieces when it is longer than a piece).
    private var headOffset = 0
    private let source: any ExportByteSource
    /// The most bytes one chunk holds: ``chunkSize``, smaller in tests (tokens cut by every
    /// chunk boundary).
    private let pieceSize: Int
    /// Bytes of the file read so far.
    private(set) var bytesRead: UInt64 = 0
    /// Why reading the source failed (the reader only sees the end of its input).
    private(set) var readError: (any Error)?
    private var closed = false

    /// - Parameters:
    ///   - head: the file's first bytes.
    ///   - prolog: what ``ExportProlog`` read of `head`.
    ///   - source: the file, positioned just after `head`.
    private init(head: [UInt8], prolog: ExportProlog, source: any ExportByteSource, pieceSize: Int) {
        // The byte order mark is left out, and the document type declaration with it, all but
        // its line breaks (white space where white space may be, so line numbers stay right).
        let start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if let documentType = prolog.documentType {
            self.head = Array(head[start..<documentType.lowerBound]) + head[documentType].filter { $0 == UInt8(ascii: "\n") }
                + head[documentType.upperBound...]
        } else {
            self.head = Array(head[start...])
        }
        bytesRead = UInt64(head.count)
        self.source = source
        self.pieceSize = max(1, min(pieceSize, Self.chunkSize))
    }

    /// Reads the prolog of the file `source` reads (at most ``ExportProlog/maximumSize`` bytes
    /// of it, in doubling steps so the tokenizer's work stays linear) and returns the stream of
    /// the rest. `source` is closed when this throws, and by the stream's `close()` otherwise.
    /// - Throws: ``AppleHealthExportError``: the prolog's refusals, `tooLarge` for a prolog
    ///   longer than the cap, `unreadable` (or the archive entry's error) when `source` fails.
    static func open(_ source: any ExportByteSource, pieceSize: Int = chunkSize) throws(AppleHealthExportError) -> PrologStrippedStream {
        var head: [UInt8] = []
        var ended = false
        var wanted = 64 << 10
        do {
            while true {
                while head.count < wanted, !ended {
                    if let chunk = try source.read(upToCount: wanted - head.count), !chunk.isEmpty {
                        head.append(contentsOf: chunk)
                    } else {
                        ended = true
                    }
                }
                if let prolog = try ExportProlog.read(head, isComplete: ended) {
                    return PrologStrippedStream(head: head, prolog: prolog, source: source, pieceSize: pieceSize)
                }
                guard head.count < ExportProlog.maximumSize else {
                    throw AppleHealthExportError(.tooLarge, "the start of export.xml before its HealthData element (XML declaration, comments, "
                                                 + "document type declaration) is longer than \(ExportProlog.maximumSize >> 20) MiB")
                }
                wanted = min(wanted * 2, ExportProlog.maximumSize)
            }
        } catch let error as AppleHealthExportError {
            source.close()
            throw error
        } catch {
            source.close()
            throw AppleHealthExportError(.unreadable, "cannot read export.xml")
        }
    }

    /// Stops reading and closes the source.
    func close() {
        guard !closed else { return }
        closed = true
        head = nil
        source.close()
    }

    /// The next bytes, nil at the end of the file, after `close()`, or when the source fails
    /// (``readError`` says why).
    func nextChunk() -> [UInt8]? {
        guard !closed, readError == nil else { return nil }
        if let head {
            if headOffset == 0, head.count <= pieceSize {
                self.head = nil
                if !head.isEmpty { return head }
            } else if headOffset < head.count {
                let end = min(head.count, headOffset + pieceSize)
                defer { headOffset = end }
                return Array(head[headOffset..<end])
            } else {
                self.head = nil
            }
        }
        do {
            guard let data = try source.read(upToCount: pieceSize), !data.isEmpty else { return nil }
            bytesRead += UInt64(data.count)
            return [UInt8](data)
        } catch {
            readError = error
            return nil
        }
    }
}

/// Puts a space before the `?` that ends a processing instruction's target when nothing else
/// comes between (`<?target?>` becomes `<?target ?>`), across chunk boundaries: libxml2 hands
/// such an instruction's data to Foundation as a null pointer, which Foundation's parser
/// dereferences. A target is the bytes after `<?` up to white space, `<`, `>` or `?` (a name
/// never holds those), so every instruction libxml2 would report without data is caught.
/// Neither export.xml (``ExportBodyReader``) nor GPX route files (``GPXByteReader``) are read by
/// `XMLParser` any more; the tests' `XMLParser` oracles are, through this filter.
struct InstructionFilter {
    private enum State {
        case text
        /// After `<`.
        case open
        /// In the bytes after `<?`.
        case target
    }

    private var state = State.text

    /// `bytes` filtered; the state carries over to the next chunk.
    mutating func apply(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        bytes.withUnsafeBufferPointer { input in
            var index = 0
            while index < input.count {
                if state == .text {
                    // Text up to the next `<` passes as it is, copied at once.
                    var end = index
                    while end < input.count, input[end] != UInt8(ascii: "<") { end += 1 }
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<end]))
                    guard end < input.count else { return }
                    index = end
                }
                step(input[index], into: &output)
                index += 1
            }
        }
        return output
    }

    /// One byte through the state machine, appended to `output` (after a blank for an instruction's `?`).
    private mutating func step(_ byte: UInt8, into output: inout [UInt8]) {
        switch state {
        case .text:
            if byte == UInt8(ascii: "<") { state = .open }
        case .open:
            if byte == UInt8(ascii: "?") { state = .target } else if byte != UInt8(ascii: "<") { state = .text }
        case .target:
            switch byte {
            case UInt8(ascii: "?"):
                output.append(UInt8(ascii: " "))
                state = .text
            case UInt8(ascii: "<"):
                state = .open
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"):
                state = .text
            default:
                break
            }
        }
        output.append(byte)
    }
}
