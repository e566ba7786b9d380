import Foundation

/// libFuzzer's entry point: `data` is an export.xml. The prolog is read as the importer reads it
/// (``PrologStrippedStream/open(_:)``), then the whole file through ``ExportXMLReader``. Every
/// input must end in a value or an ``AppleHealthExportError``; a crash, a hang or a broken
/// invariant (checked with `precondition`, which libFuzzer reports as a crash) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExportReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    checkProlog(bytes)
    guard let stream = try? PrologStrippedStream.open(DataByteSource(Data(bytes))) else { return 0 }
    defer { stream.close() }
    var elements = 0
    do {
        try ExportXMLReader(maximumChildren: 1_000).read(stream) { _ in elements += 1 }
    } catch {
        precondition(error is AppleHealthExportError, "the reader threw an untyped error")
    }
    return 0
}

/// The tokenizer's invariants: a prefix never gives a different answer than the whole (only
/// "more may follow"), and once the document type declaration is blanked, what the parser sees
/// before the root element is only a byte order mark, white space, comments and processing
/// instructions (the XML declaration among them).
private func checkProlog(_ bytes: [UInt8]) {
    let whole: ExportProlog?
    do {
        whole = try ExportProlog.read(bytes, isComplete: true)
    } catch {
        whole = nil
    }
    if !bytes.isEmpty, let partial = try? ExportProlog.read(Array(bytes[..<(bytes.count / 2)]), isComplete: false) {
        precondition(partial == whole, "a prefix read as a different prolog")
    }
    guard let whole else { return }
    let blanked = whole.blankingDocumentType(of: bytes)
    precondition(blanked.count == bytes.count, "blanking changed the length")
    precondition(whole.rootOffset + 11 <= bytes.count && Array(blanked[whole.rootOffset..<whole.rootOffset + 11]) == Array("<HealthData".utf8),
                 "the root is not HealthData")
    let prolog = Array(blanked[..<whole.rootOffset])
    var index = prolog.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    func skip(past terminator: String) {
        let pattern = Array(terminator.utf8)
        while index + pattern.count <= prolog.count, !prolog[index..<index + pattern.count].elementsEqual(pattern) { index += 1 }
        precondition(index + pattern.count <= prolog.count, "a comment or processing instruction is not closed before the root element")
        index += pattern.count
    }
    while index < prolog.count {
        switch prolog[index] {
        case 0x20, 0x09, 0x0A, 0x0D:
            index += 1
        case UInt8(ascii: "<") where prolog[index...].starts(with: "<!--".utf8):
            index += 4
            skip(past: "-->")
        case UInt8(ascii: "<") where prolog[index...].starts(with: "<?".utf8):
            index += 2
            skip(past: "?>")
        default:
            preconditionFailure("the parser would see something other than comments and processing instructions before the root element")
        }
    }
}
