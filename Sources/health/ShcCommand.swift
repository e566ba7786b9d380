import CommonSupport
import ArgumentParser
import Foundation
import QRImageReader
import SmartHealthCards

/// `health shc …`: verify, issue, revoke and decode SMART Health Cards.
///
/// Exit codes (all `shc` commands): 0 success (for `verify`: every card valid), 1 a card is
/// invalid, 2 usage or I/O errors.
struct ShcCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shc",
        abstract: "Verify, issue, revoke and decode SMART Health Cards.",
        subcommands: [ShcVerifyCommand.self, ShcKeygenCommand.self, ShcIssueCommand.self, ShcRevokeCommand.self, ShcDecodeCommand.self])
}

/// A usage or I/O failure of an `shc` command: printed, then exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads a command-line input: a file path, or `-` for standard input.
///
/// Standard input is read with ``fileBytes(descriptor:)``, not Foundation's
/// `readDataToEndOfFile()`, which traps (a `try!` inside Foundation) when the descriptor cannot be
/// read: `health fhir validate - <&-` (closed) or `< folder` stopped with SIGILL.
func readInput(_ path: String) throws -> [UInt8] {
    if path == "-" {
        guard let bytes = fileBytes(descriptor: STDIN_FILENO) else {
            throw UsageError("cannot read standard input (closed, or not a file or pipe)")
        }
        return bytes
    }
    guard let bytes = fileBytes(atPath: path) else {
        throw UsageError("cannot read '\(path)'")
    }
    return bytes
}

/// The contents of the file at `path` read straight into an array (a file of thousands of cards
/// is megabytes: read into `Data` and copied, its pages were faulted in and written twice); nil
/// when it cannot be opened or read (a folder included).
func fileBytes(atPath path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    return fileBytes(descriptor: descriptor)
}

/// What `descriptor` holds from its current offset to its end; nil when it cannot be read (closed,
/// a folder). The descriptor is left open.
func fileBytes(descriptor: Int32) -> [UInt8]? {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    /// Reads into `buffer` from its start; the count read (0 at the end of the file), or nil.
    func readSome(_ buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }
    // The size fstat gives is read into the array's own storage; anything beyond it (a file that
    // grew, a special file of size 0) is appended until the end of the file.
    let expected = max(0, Int(status.st_size))
    var failed = false
    var bytes = [UInt8](unsafeUninitializedCapacity: expected) { buffer, initialized in
        initialized = 0
        while initialized < expected {
            guard let count = readSome(UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[initialized...])) else {
                failed = true
                return
            }
            if count == 0 { return }
            initialized += count
        }
    }
    guard !failed else { return nil }
    let complete = withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) { chunk -> Bool in
        while true {
            guard let count = readSome(chunk) else { return false }
            if count == 0 { return true }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
    return complete ? bytes : nil
}

/// Parses `--at` and similar ISO 8601 instants.
func parseInstant(_ text: String) throws -> Date {
    do {
        return try parseDate(text)
    } catch {
        throw UsageError("invalid date '\(text)': use ISO 8601, e.g. 2026-11-20T08:30:00Z")
    }
}

/// The card text of an input: the file's bytes, or for a PNG/JPEG/BMP/GIF image the `shc:/` text
/// of every QR code in it, one per line (read with zxing-cpp).
func cardText(of path: String) throws -> [UInt8] {
    try cardText(try readInput(path), path: path)
}

/// ``cardText(of:)`` for an input's bytes already read (`path` names the input, `-` standard input).
func cardText(_ bytes: [UInt8], path: String) throws -> [UInt8] {
    guard QRImageReader.isImage(bytes) else { return bytes }
    let url: URL
    if path == "-" {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("health-shc-\(UUID().uuidString)")
        do {
            try SecretFile.save(bytes, to: url.path, replacing: false)
        } catch {
            throw UsageError("cannot buffer the image from standard input: \(error)")
        }
    } else {
        url = URL(fileURLWithPath: path)
    }
    defer { if path == "-" { try? FileManager.default.removeItem(at: url) } }
    do {
        let texts = try QRImageReader.texts(inImageAt: url)
        guard !texts.isEmpty else { throw UsageError("\(path): no QR code found in the image") }
        return Array(texts.joined(separator: "\n").utf8)
    } catch let error as UsageError {
        throw error
    } catch {
        throw UsageError("\(error)")
    }
}
