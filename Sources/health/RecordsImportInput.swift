import Foundation
import HealthRecords

/// One input of `health records import`, read so that memory stays bounded whatever its size: an
/// input up to ``HealthRecordInput/maximumDocumentSize`` is read once and imported whole (a
/// resource, a Bundle, NDJSON, cards); a larger one can only be NDJSON, and is read and stored
/// in parts of whole lines (about ``partSize`` bytes each), never held whole, each part's records
/// released once stored (only their summary is kept for the report). A larger input
/// whose first line is not a resource (a Bundle or resource over the limit) is refused unread,
/// and so is each NDJSON line over the limit.
struct RecordsImportInput {
    /// About how many bytes of NDJSON lines are parsed and stored at a time.
    static let partSize = 4 << 20

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    let path: String

    /// Opens `path` (`-` is standard input).
    /// - Throws: ``UsageError`` when it cannot be opened.
    init(_ path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            ownsDescriptor = true
            var status = stat()
            guard descriptor >= 0, fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) != S_IFDIR else {
                if descriptor >= 0 { _ = Foundation.close(descriptor) }
                throw UsageError("cannot read '\(path)'")
            }
        }
    }

    func close() {
        if ownsDescriptor { _ = Foundation.close(descriptor) }
    }

    /// Up to `count` bytes (fewer only at the end of the input).
    func read(upTo count: Int) throws -> [UInt8] {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            while initialized < count {
                let read = Foundation.read(descriptor, buffer.baseAddress.map { $0 + initialized }, count - initialized)
                if read > 0 {
                    initialized += read
                } else if read == 0 {
                    return
                } else if errno != EINTR {
                    failed = true
                    return
                }
            }
        }
        guard !failed else { throw UsageError("cannot read '\(path)'") }
        return bytes
    }

    /// ``read(upTo:)`` on a Dispatch thread (a read blocks; Swift's cooperative threads must not).
    func readOffPool(upTo count: Int) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try read(upTo: count) }) }
        }
    }

    /// Imports the input through `importer`, adding to `report`; the records of an NDJSON file read
    /// in parts go to `released` as each part is stored, so they are not held to the end.
    ///
    /// One person per store, for an input read in parts: when the store has an owner to check
    /// (``HealthRecordImporter/owner()``), the whole file is read once first for its Patients, and
    /// an input holding another person's Patient, on any line, is refused with nothing stored.
    /// An input that cannot be read twice (a pipe) is then refused unread, since its Patient may
    /// come after records that would already be stored. A part refused on the second pass (the
    /// file changed in between) ends the import: nothing after it is stored.
    func importRecords(with importer: HealthRecordImporter, into report: inout HealthRecordImportReport,
                       released: inout RecordsFormatter.StoredSummary) async throws {
        let limit = HealthRecordInput.maximumDocumentSize
        let start = lseek(descriptor, 0, SEEK_CUR)
        var head = try await readOffPool(upTo: limit + 1)
        if head.count <= limit {
            try await importer.importInput(try cardText(head, path: path), named: path, into: &report)
            return
        }
        // Larger than one document may be: NDJSON, or refused. Its first line must be a resource.
        let firstLine = head.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        guard firstLine.count <= limit, !HealthRecordInput.ndjsonLines(Array(firstLine), firstLine: 1, validate: nil).resources.isEmpty else {
            report.unreadable.append((path, HealthRecordImportError.tooLarge(limit).description))
            return
        }
        if let owner = await importer.owner() {
            var status = stat()
            guard start >= 0, fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                report.refusals.append(.init(input: path, location: "input", reasons: [
                    "an input over \(limit >> 20) MiB that is not a file cannot be checked for whose records it holds before they are stored: "
                        + "nothing in this input was stored; give it as a file, or give --allow-other-person",
                ]))
                return
            }
            var allowed = true
            try await forEachPart(startingWith: head, refusingLongLines: false, into: &report) { part, line, report in
                allowed = importer.checkNDJSONPatients(part, firstLine: line, named: path, owner: owner, into: &report)
                return allowed
            }
            guard allowed else { return }
            guard lseek(descriptor, start, SEEK_SET) == start else { throw UsageError("cannot read '\(path)'") }
            head = try await readOffPool(upTo: limit + 1)
        }
        try await forEachPart(startingWith: head, refusingLongLines: true, into: &report) { part, line, report in
            let others = report.otherPeople.count
            try await importer.importNDJSONPart(part, firstLine: line, named: path, into: &report)
            released.release(from: &report)
            return report.otherPeople.count == others
        }
    }

    /// Reads the rest of an NDJSON input whose first bytes are `head` in parts of whole lines
    /// (about ``partSize`` bytes each) and hands each to `body` with the number of its first line,
    /// until the input ends or `body` returns false. A line over the document limit is dropped as
    /// it is read (and refused in `report` when `refusingLongLines`).
    private func forEachPart(startingWith head: [UInt8], refusingLongLines: Bool, into report: inout HealthRecordImportReport,
                             _ body: ([UInt8], Int, inout HealthRecordImportReport) async throws -> Bool) async throws {
        let limit = HealthRecordInput.maximumDocumentSize
        var pending = head
        var line = 1
        var discarding = false
        var ended = false
        while true {
            if discarding {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    pending.removeSubrange(...newline)
                    line += 1
                    discarding = false
                } else {
                    pending.removeAll(keepingCapacity: true)
                }
            }
            // Whole lines, about partSize bytes of them (one longer line whole), while more than a part is waiting.
            while !discarding, ended || pending.count >= Self.partSize,
                  let newline = pending[..<min(pending.count, Self.partSize)].lastIndex(of: UInt8(ascii: "\n"))
                    ?? pending.firstIndex(of: UInt8(ascii: "\n")) {
                let part = Array(pending[...newline])
                pending.removeSubrange(...newline)
                guard try await body(part, line, &report) else { return }
                line += part.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            }
            if !discarding, pending.count > limit {
                // A line over the limit: refused, and dropped as it is read.
                if refusingLongLines {
                    report.refusals.append(.init(input: path, location: "line \(line)", reasons: [HealthRecordImportError.tooLarge(limit).description]))
                }
                pending.removeAll(keepingCapacity: true)
                discarding = true
            }
            if ended {
                if !discarding, pending.contains(where: { !Self.isSpace($0) }) {
                    _ = try await body(pending, line, &report)
                }
                return
            }
            let chunk = try await readOffPool(upTo: 1 << 20)
            if chunk.isEmpty { ended = true } else { pending += chunk }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
