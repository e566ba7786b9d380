import Foundation

/// An uploaded file kept in a temporary file (owner-only, 0600) from the time its request is
/// answered until its background job reads it: the request's body and the parsed form are
/// released at once, and a job holds in memory only the file it is working on.
struct SpooledUpload: Sendable {
    /// The file name the browser sent.
    let filename: String
    private let url: URL

    /// Writes `file`'s bytes to a new temporary file.
    init(_ file: MultipartForm.File) throws {
        filename = file.filename
        url = FileManager.default.temporaryDirectory.appendingPathComponent("health-ui-upload-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        // Written from the array's own storage, not copied into a Data first.
        try file.bytes.withUnsafeBytes { bytes in
            try handle.write(contentsOf: UnsafeRawBufferPointer(bytes))
        }
    }

    /// The bytes, read once: the temporary file is removed.
    func take() throws -> [UInt8] {
        defer { remove() }
        return Array(try Data(contentsOf: url))
    }

    /// Spools `files` on a Dispatch thread (file writes block; Swift's cooperative threads must not).
    static func spool(_ files: [MultipartForm.File]) async throws -> [SpooledUpload] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var spooled: [SpooledUpload] = []
                do {
                    for file in files { spooled.append(try SpooledUpload(file)) }
                    continuation.resume(returning: spooled)
                } catch {
                    for upload in spooled { upload.remove() }
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// ``take()`` on a Dispatch thread.
    func takeOffPool() async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try take() }) }
        }
    }

    /// Removes the temporary file (when the job ends without reading it).
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
