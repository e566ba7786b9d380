import Foundation

/// The export's bytes as Foundation's XMLParser is to see them, which on Linux crashes on two
/// things a well-formed file may hold:
/// - markup declarations (`ATTLIST` with `#REQUIRED` or `#IMPLIED`, which every Apple export's
///   DTD has, and `NOTATION`): the document type declaration is blanked out (each byte a space,
///   line breaks kept, so line numbers stay right). ``ExportProlog`` finds it, however long, and
///   refuses what an export never has (entities, an external DTD, another root element); the
///   importer needs nothing from the DTD;
/// - a processing instruction without data (`<?target?>`, anywhere in the file): a space is
///   put before its `?>`, which leaves the document as it was (the instruction's data is empty
///   either way; in a comment or a CDATA section the text changes, which the importer never reads).
final class PrologStrippedStream: InputStream {
    /// The bytes read and filtered, not yet handed to the parser.
    private var pending: [UInt8]
    private var pendingOffset = 0
    private let source: any ExportByteSource
    private var filter: InstructionFilter
    private var status: Stream.Status = .notOpen
    /// Bytes of the file handed to the parser so far (as read, before the filter).
    private(set) var bytesRead: UInt64 = 0
    /// Why reading the source failed (the parser only sees the end of its input).
    private(set) var readError: (any Error)?

    /// - Parameters:
    ///   - head: the file's first bytes, the document type declaration blanked.
    ///   - source: the file, positioned just after `head`.
    private init(head: [UInt8], source: any ExportByteSource) {
        var filter = InstructionFilter()
        pending = filter.apply(head)
        self.filter = filter
        bytesRead = UInt64(head.count)
        self.source = source
        super.init(data: Data())
    }

    /// Reads the prolog of the file `source` reads (at most ``ExportProlog/maximumSize`` bytes
    /// of it, in doubling steps so the tokenizer's work stays linear) and returns the stream the
    /// parser reads. `source` is closed when this throws, and by the stream's `close()` otherwise.
    /// - Throws: ``AppleHealthExportError``: the prolog's refusals, `tooLarge` for a prolog
    ///   longer than the cap, `unreadable` (or the archive entry's error) when `source` fails.
    static func open(_ source: any ExportByteSource) throws(AppleHealthExportError) -> PrologStrippedStream {
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
                    return PrologStrippedStream(head: prolog.blankingDocumentType(of: head), source: source)
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

    override func open() { status = .open }

    override func close() {
        status = .closed
        source.close()
    }

    override var streamStatus: Stream.Status { status }

    override var hasBytesAvailable: Bool { status == .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard len > 0 else { return 0 }
        if pendingOffset == pending.count {
            do {
                guard let data = try source.read(upToCount: len), !data.isEmpty else { return 0 }
                bytesRead += UInt64(data.count)
                pending = filter.apply([UInt8](data))
                pendingOffset = 0
            } catch {
                readError = error
                return -1
            }
        }
        let count = min(len, pending.count - pendingOffset)
        pending.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            buffer.update(from: base + pendingOffset, count: count)
        }
        pendingOffset += count
        return count
    }
}

/// Puts a space before the `?` that ends a processing instruction's target when nothing else
/// comes between (`<?target?>` becomes `<?target ?>`), across chunk boundaries: libxml2 hands
/// such an instruction's data to Foundation as a null pointer, which Foundation's parser
/// dereferences. A target is the bytes after `<?` up to white space, `<`, `>` or `?` (a name
/// never holds those), so every instruction libxml2 would report without data is caught.
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
