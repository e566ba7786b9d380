import Foundation
import NIOCore
import OpenHealthKit
import Synchronization

/// The temporary files uploads are streamed to: owner-only (0600) files in one folder (beside the
/// store's database, or the system's temporary folder for a store in memory), named
/// `health-ui-export-<process>-<UUID>`. Each is removed when its job ends; those alive when the
/// server stops are removed then.
final class TemporaryUploads: Sendable {
    /// Where the files are made.
    let folder: URL
    private let paths = Mutex<Set<String>>([])
    private let created = Mutex(0)

    /// The prefix of every file's name.
    static let prefix = "health-ui-export-"

    init(folder: URL) {
        self.folder = folder
    }

    /// The folder for a store: its database's folder, or the system's temporary folder.
    static func folder(for store: HKHealthStore) -> URL {
        switch store.configuration.location {
        case .file(let url): url.deletingLastPathComponent()
        case .inMemory: FileManager.default.temporaryDirectory
        }
    }

    /// The files alive now (for the tests).
    var alive: [URL] { paths.withLock { $0.sorted().map { URL(fileURLWithPath: $0) } } }
    /// How many files were ever created (for the tests: a refused upload created none).
    var createdCount: Int { created.withLock { $0 } }

    /// Creates an empty owner-only file (blocking: call it off the cooperative pool).
    func create(suffix: String) throws -> URL {
        let url = folder.appendingPathComponent("\(Self.prefix)\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).\(suffix)")
        paths.withLock { _ = $0.insert(url.path) }
        created.withLock { $0 += 1 }
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            paths.withLock { _ = $0.remove(url.path) }
            throw CocoaError(.fileWriteUnknown)
        }
        return url
    }

    /// Removes a file, on a Dispatch thread.
    func remove(_ url: URL) async {
        await StreamedUpload.offPool { self.removeNow(url) }
    }

    /// Removes every file alive (when the server stops; a job still reading one reads on from its
    /// open descriptor until the process ends).
    func removeAll() {
        for path in paths.withLock({ $0 }) { removeNow(URL(fileURLWithPath: path)) }
    }

    private func removeNow(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
        paths.withLock { _ = $0.remove(url.path) }
    }
}

/// Why a streamed upload was not received. Nothing is kept when it is thrown.
enum StreamedUploadError: Error, Equatable {
    /// The body is larger than the limit.
    case tooLarge
    /// A file part came before a valid CSRF token field.
    case forbidden
    /// The body is not a well-formed form (or a text field is over 64 KB).
    case form(MultipartFormError)
    /// The temporary file could not be written.
    case unwritable
    /// The body stopped coming (the browser went away, the server stops).
    case interrupted
}

/// An upload read from the request's body as it arrives: its text fields in memory, its one file
/// written to a ``TemporaryUploads`` file in pieces of at most ``flushBytes`` (on a Dispatch thread:
/// file writes block, Swift's cooperative threads must not), so memory does not grow with the
/// upload. The CSRF token is checked when the file part begins, before any byte is written: the
/// page's form puts its `csrf` field first.
struct StreamedUpload: Sendable {
    /// The text fields.
    let fields: [String: String]
    /// The file the browser sent, or nil when the file input was left empty.
    let file: URL?
    /// The file name the browser sent (its last path component).
    let filename: String
    /// The file's size in bytes.
    let size: Int

    /// How many bytes are gathered before each write.
    static let flushBytes = 1 << 20
    /// The largest text field.
    static let maximumFieldBytes = 64 * 1024

    /// Reads `body` to its end.
    /// - Parameters:
    ///   - body: the request body.
    ///   - boundary: the multipart boundary (``MultipartForm/boundary(contentType:)``).
    ///   - limit: the most bytes the body may have.
    ///   - fileField: the form field of the file; file parts of other fields are refused.
    ///   - uploads: where the file is written.
    ///   - suffix: the temporary file's extension, from the file name the browser sent.
    ///   - authorized: whether the text fields read before the file (the CSRF token) allow it.
    static func receive<Body: AsyncSequence>(
        _ body: Body, boundary: String, limit: Int, fileField: String, into uploads: TemporaryUploads,
        suffix: @escaping @Sendable (String) -> String, authorized: ([String: String]) -> Bool
    ) async throws(StreamedUploadError) -> StreamedUpload where Body.Element == ByteBuffer {
        var stream: MultipartStream
        do { stream = try MultipartStream(boundary: boundary) } catch { throw .form(error) }
        let receiver = Receiver(fileField: fileField, uploads: uploads, suffix: suffix)
        do {
            var total = 0
            for try await chunk in body {
                total += chunk.readableBytes
                guard total <= limit else { throw StreamedUploadError.tooLarge }
                do {
                    try stream.read(chunk) { (event: MultipartStream.Event) throws(StreamedUploadError) in
                        try receiver.handle(event, authorized: authorized)
                    }
                } catch {
                    switch error {
                    case .form(let form): throw StreamedUploadError.form(form)
                    case .handler(let failure): throw failure
                    }
                }
                try await receiver.flush(whenOver: flushBytes)
            }
            do { try stream.finish() } catch { throw StreamedUploadError.form(error) }
            try await receiver.flush(whenOver: 0)
            try await receiver.close()
            guard let upload = receiver.upload else { throw StreamedUploadError.interrupted }
            return upload
        } catch {
            await receiver.discard()
            throw (error as? StreamedUploadError) ?? .interrupted
        }
    }

    /// Runs blocking work on a Dispatch thread.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs blocking work that cannot fail on a Dispatch thread.
    static func offPool(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                work()
                continuation.resume()
            }
        }
    }

    /// One upload's reading: the fields so far, the file being written.
    private final class Receiver {
        let fileField: String
        let uploads: TemporaryUploads
        let suffix: @Sendable (String) -> String
        var fields: [String: String] = [:]
        var fieldName: String?
        var fieldBytes: [UInt8] = []
        /// The file part being read: its name, and the bytes not yet written.
        var filePart: String?
        var filename = ""
        var file: (url: URL, handle: FileHandle)?
        var unwritten = ByteBuffer()
        var size = 0
        var upload: StreamedUpload?
        var ended = false

        init(fileField: String, uploads: TemporaryUploads, suffix: @escaping @Sendable (String) -> String) {
            self.fileField = fileField
            self.uploads = uploads
            self.suffix = suffix
        }

        func handle(_ event: MultipartStream.Event, authorized: ([String: String]) -> Bool) throws(StreamedUploadError) {
            switch event {
            case let .partBegins(name, filename):
                if let filename {
                    guard authorized(fields) else { throw .forbidden }
                    guard name == fileField, filePart == nil, file == nil else { throw .form(.malformed) }
                    filePart = name
                    self.filename = filename
                } else {
                    fieldName = name
                    fieldBytes = []
                }
            case .bytes(var bytes):
                if filePart != nil {
                    size += bytes.readableBytes
                    unwritten.writeBuffer(&bytes)
                } else {
                    guard fieldBytes.count + bytes.readableBytes <= StreamedUpload.maximumFieldBytes else { throw .form(.malformed) }
                    fieldBytes += bytes.readableBytesView
                }
            case .partEnds:
                if filePart != nil {
                    filePart = nil
                    ended = true
                } else if let name = fieldName {
                    if fields[name] == nil { fields[name] = String(decoding: fieldBytes, as: UTF8.self) }
                    fieldName = nil
                    fieldBytes = []
                }
            }
        }

        /// Writes the gathered bytes once there are more than `threshold` (the file is created
        /// with the first of them, or when the file part ends empty).
        func flush(whenOver threshold: Int) async throws(StreamedUploadError) {
            guard unwritten.readableBytes > threshold || (ended && file == nil && !(filename.isEmpty && size == 0)) else { return }
            if file == nil {
                let suffix = suffix(filename)
                let uploads = uploads
                do {
                    let url = try await StreamedUpload.offPool { try uploads.create(suffix: suffix) }
                    let handle = try FileHandle(forWritingTo: url)
                    file = (url, handle)
                } catch {
                    throw .unwritable
                }
            }
            guard let file, unwritten.readableBytes > 0 else { return }
            let data = Data(unwritten.readableBytesView)
            unwritten.clear()
            do {
                try await StreamedUpload.offPool { try file.handle.write(contentsOf: data) }
            } catch {
                throw .unwritable
            }
        }

        /// Closes the file; the upload is ready.
        func close() async throws(StreamedUploadError) {
            if let file {
                do { try await StreamedUpload.offPool { try file.handle.close() } } catch { throw .unwritable }
            }
            upload = StreamedUpload(fields: fields, file: file?.url, filename: filename.isEmpty ? "upload" : filename, size: size)
            file = nil
        }

        /// Closes and removes the file.
        func discard() async {
            guard let file else { return }
            self.file = nil
            try? await StreamedUpload.offPool { try file.handle.close() }
            await uploads.remove(file.url)
        }
    }
}
