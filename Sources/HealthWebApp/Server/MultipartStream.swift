#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOCore

/// A `multipart/form-data` body read as it arrives, chunk by chunk, in memory that does not grow
/// with the body: a part's bytes are handed on as they are read (all but the few that could begin
/// the next boundary), and only a part's headers are held, up to ``maximumHeaderBytes``.
///
/// What the page's large uploads go through (an Apple Health export of a gigabyte); the whole-body
/// ``MultipartForm`` reads the small ones. Its syntax is the same: a part's headers end at a blank
/// line and name it with `Content-Disposition: form-data; name="…"`, the body ends at the closing
/// `--boundary--`, and a body that stops before it is ``MultipartFormError/truncated``.
struct MultipartStream {
    /// What the stream has read.
    enum Event {
        /// A part begins: its form field and, for a file, the file name the browser sent (its last
        /// path component; empty when the file input was left empty).
        case partBegins(name: String, filename: String?)
        /// Some of the current part's bytes (a view of the chunk, valid during the call).
        case bytes(ByteBuffer)
        /// The current part has ended.
        case partEnds
    }

    /// The most bytes one part's headers may take.
    static let maximumHeaderBytes = 16 * 1024

    private enum State {
        /// Before the first boundary.
        case preamble
        /// Just after a boundary: `--` closes the body, CRLF opens a part's headers.
        case afterBoundary
        case headers
        case body
        /// After the closing boundary: the rest is ignored.
        case closed
    }

    /// CRLF `--` boundary: what ends a part (the body is read as if it began with a CRLF, so the
    /// first boundary is matched the same way).
    private let delimiter: [UInt8]
    private var state = State.preamble
    /// Bytes read but not yet handed on: the headers being read, or a body's tail that could be
    /// the start of a boundary.
    private var pending = ByteBuffer()
    private var headers: [(name: String, value: String)] = []
    private var headerBytes = 0
    /// How far the pending bytes were searched for the end of a header line.
    private var headerScanned = 0
    private var parts = 0

    /// A stream of a body sent with `boundary` (``MultipartForm/boundary(contentType:)``).
    init(boundary: String) throws(MultipartFormError) {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else { throw .missingBoundary }
        delimiter = Array("\r\n--\(boundary)".utf8)
        pending.writeBytes([0x0D, 0x0A])
    }

    /// Whether the closing boundary was read.
    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Reads the next chunk of the body, calling `handle` with what it completes.
    /// - Parameters:
    ///   - chunk: the bytes that arrived.
    ///   - handle: called in order with each event; what it throws stops the read and is rethrown.
    mutating func read<Failure: Error>(_ chunk: ByteBuffer, _ handle: (Event) throws(Failure) -> Void) throws(MultipartStreamFailure<Failure>) {
        if case .closed = state { return }
        var chunk = chunk
        pending.writeBuffer(&chunk)
        defer { pending.discardReadBytes() }
        while pending.readableBytes > 0 {
            switch state {
            case .preamble:
                // Everything before the first boundary is ignored.
                guard let at = delimiterIndex() else {
                    pending.moveReaderIndex(forwardBy: max(0, pending.readableBytes - (delimiter.count - 1)))
                    return
                }
                pending.moveReaderIndex(forwardBy: at + delimiter.count)
                state = .afterBoundary
            case .afterBoundary:
                guard pending.readableBytes >= 2, let pair = pending.readBytes(length: 2) else { return }
                if pair == [0x2D, 0x2D] {
                    state = .closed
                    pending.moveReaderIndex(forwardBy: pending.readableBytes)
                    return
                }
                guard pair == [0x0D, 0x0A] else { throw .form(.malformed) }
                parts += 1
                guard parts <= MultipartForm.maximumParts else { throw .form(.tooManyParts) }
                headers = []
                headerBytes = 0
                state = .headers
            case .headers:
                let header: [UInt8]?
                do { header = try readHeaderLine() } catch { throw .form(error) }
                guard let line = header else { return }
                if line.isEmpty {
                    let begins: Event
                    do { begins = try partBegins() } catch { throw .form(error) }
                    state = .body
                    do throws(Failure) { try handle(begins) } catch { throw .handler(error) }
                } else {
                    do { try addHeader(line) } catch { throw .form(error) }
                }
            case .body:
                if let at = delimiterIndex() {
                    if at > 0, let slice = pending.readSlice(length: at) {
                        do throws(Failure) { try handle(.bytes(slice)) } catch { throw .handler(error) }
                    }
                    pending.moveReaderIndex(forwardBy: delimiter.count)
                    state = .afterBoundary
                    do throws(Failure) { try handle(.partEnds) } catch { throw .handler(error) }
                } else {
                    // Keep only what could be the start of a boundary.
                    let safe = pending.readableBytes - (delimiter.count - 1)
                    if safe > 0, let slice = pending.readSlice(length: safe) {
                        do throws(Failure) { try handle(.bytes(slice)) } catch { throw .handler(error) }
                    }
                    return
                }
            case .closed:
                pending.moveReaderIndex(forwardBy: pending.readableBytes)
                return
            }
        }
    }

    /// Checks that the body ended with its closing boundary.
    func finish() throws(MultipartFormError) {
        guard isClosed else { throw .truncated }
    }

    /// Where the delimiter starts in the pending bytes (memchr finds each CR; a gigabyte goes
    /// through here).
    private func delimiterIndex() -> Int? {
        let delimiter = delimiter
        return pending.withUnsafeReadableBytes { bytes -> Int? in
            guard let base = bytes.baseAddress else { return nil }
            var offset = 0
            while offset + delimiter.count <= bytes.count {
                guard let found = memchr(base + offset, 0x0D, bytes.count - offset) else { return nil }
                let at = base.distance(to: UnsafeRawPointer(found))
                guard at + delimiter.count <= bytes.count else { return nil }
                let matches = delimiter.withUnsafeBytes { wanted in wanted.baseAddress.map { memcmp(base + at, $0, wanted.count) == 0 } ?? false }
                if matches { return at }
                offset = at + 1
            }
            return nil
        }
    }

    /// The next header line without its CRLF, or nil until it has arrived.
    private mutating func readHeaderLine() throws(MultipartFormError) -> [UInt8]? {
        let start = max(0, headerScanned - 1)
        let end = pending.withUnsafeReadableBytes { bytes -> Int? in
            var index = start
            while index + 1 < bytes.count {
                if bytes[index] == 0x0D, bytes[index + 1] == 0x0A { return index }
                index += 1
            }
            return nil
        }
        guard let end else {
            headerScanned = pending.readableBytes
            guard headerBytes + pending.readableBytes <= Self.maximumHeaderBytes else { throw .malformed }
            return nil
        }
        headerScanned = 0
        headerBytes += end + 2
        guard headerBytes <= Self.maximumHeaderBytes, let line = pending.readBytes(length: end) else { throw .malformed }
        pending.moveReaderIndex(forwardBy: 2)
        return line
    }

    /// A header line `Name: value`; the name must be a token (RFC 822), the value UTF-8.
    private mutating func addHeader(_ line: [UInt8]) throws(MultipartFormError) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              line[..<colon].allSatisfy(Self.isTokenByte) else { throw .malformed }
        guard let value = String(validating: line[(colon + 1)...], as: UTF8.self) else { throw .malformed }
        headers.append((String(decoding: line[..<colon], as: UTF8.self), value.trimmingCharacters(in: .whitespaces)))
    }

    /// The part its headers describe.
    private func partBegins() throws(MultipartFormError) -> Event {
        guard let disposition = headers.first(where: { $0.name.lowercased() == "content-disposition" })?.value else { throw .unnamedPart }
        let parameters = HeaderParameters(disposition)
        guard parameters.value.lowercased() == "form-data", let name = parameters["name"], !name.isEmpty else { throw .unnamedPart }
        let filename = parameters["filename"].map { filename in
            filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        }
        return .partBegins(name: name, filename: filename)
    }

    /// A header name's byte: printable ASCII but for the separators.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return !"()<>@,;:\\\"/[]?={}".utf8.contains(byte)
    }
}

/// Why ``MultipartStream/read(_:_:)`` stopped: the body's syntax, or what its handler threw.
enum MultipartStreamFailure<Failure: Error>: Error {
    /// The body is not a well-formed form.
    case form(MultipartFormError)
    /// The handler threw.
    case handler(Failure)
}
