#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import FhirBlocksStore
import Foundation

/// The NDJSON files of a SQLite store's Bulk Data export jobs, on disk: `exports/{job}/{Type}.ndjson`
/// in the folder of the database file (the data folder), the folders mode 0700 and the files 0600.
///
/// The writes (appending a chunk, removing a job's folder, syncing its files) block their thread:
/// the store makes them inside its write transactions, on the database's writer queue, so they
/// are ordered with the job's lease exactly as the rows are. The reads a download makes run on
/// a dispatch queue of their own (``read(_:at:count:)``), never on Swift's cooperative pool.
struct SQLiteExportFiles: Sendable {
    /// The `exports` folder.
    let folder: String

    /// The files of the store whose database file is at `databasePath`; nil for an in-memory
    /// store (its chunks stay in the database).
    init?(databasePath: String) {
        guard databasePath != ":memory:", !databasePath.isEmpty else { return nil }
        folder = URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("exports").path
    }

    /// The queue the downloads' reads run on.
    private static let queue = DispatchQueue(label: "FhirBlocks export files", attributes: .concurrent)

    /// Whether `name` may name a job's folder or a file (letters, digits, `-` and `_`, 1 to 64):
    /// nothing that could leave the `exports` folder.
    static func isSafe(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    /// The folder of job `id`.
    func jobFolder(_ id: String) throws(TrustStoreError) -> String {
        guard Self.isSafe(id) else { throw .corrupt("export job id") }
        return folder + "/" + id
    }

    /// The file of `type` of job `id`.
    func path(job id: String, type: String) throws(TrustStoreError) -> String {
        guard Self.isSafe(type) else { throw .corrupt("export file type") }
        return try jobFolder(id) + "/" + type + ".ndjson"
    }

    // MARK: Writes (blocking; on the store's writer queue)

    /// Appends `bytes` to the file of `type` of job `id`, creating the folders (0700) and the file (0600) when missing.
    func append(_ bytes: [UInt8], job id: String, type: String) throws(TrustStoreError) {
        let path = try path(job: id, type: type)
        try Self.makeFolder(folder)
        try Self.makeFolder(try jobFolder(id))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else { throw .unavailable("cannot open an export file: \(Self.systemMessage())") }
        var failure: String?
        // open(2)'s mode is masked by the umask; never wider than 0600 either way.
        if fchmod(descriptor, mode_t(0o600)) != 0 { failure = Self.systemMessage() }
        var written = 0
        while failure == nil, written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                failure = Self.systemMessage()
            } else {
                written += result
            }
        }
        // The disk starts on the bytes now, while the job reads on: the sync before the job
        // completes (``sync(job:)``, which makes them durable) then has little left to wait for.
        if failure == nil { Self.startWriteback(descriptor) }
        if close(descriptor) != 0, failure == nil { failure = Self.systemMessage() }
        if let failure { throw .unavailable("cannot write an export file: \(failure)") }
    }

    /// Where `sync_file_range(2)` is (Linux; 0 when not found, and elsewhere): looked up by name,
    /// since glibc declares it only to code built with `_GNU_SOURCE`.
    private static let syncFileRangeAddress: Int = {
        #if os(Linux)
        Int(bitPattern: dlsym(nil, "sync_file_range"))
        #else
        0
        #endif
    }()

    /// Starts writing the file's dirty pages to the disk without waiting for them
    /// (`sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE)`): a hint that moves the work
    /// of a later `fsync` earlier, never a promise that anything is durable. Nothing elsewhere.
    private static func startWriteback(_ descriptor: Int32) {
        #if os(Linux)
        typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
        guard let address = UnsafeRawPointer(bitPattern: syncFileRangeAddress) else { return }
        let writeOnly: UInt32 = 2
        _ = unsafeBitCast(address, to: SyncFileRange.self)(descriptor, 0, 0, writeOnly)
        #endif
    }

    /// Flushes every file of job `id` and its folder to the disk (before the job is marked complete).
    func sync(job id: String) throws(TrustStoreError) {
        let folder = try jobFolder(id)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names.sorted() + ["."] {
            let descriptor = open(folder + "/" + name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { throw .unavailable("cannot open an export file: \(Self.systemMessage())") }
            let synced = fsync(descriptor) == 0
            let message = synced ? "" : Self.systemMessage()
            close(descriptor)
            guard synced else { throw .unavailable("cannot sync an export file: \(message)") }
        }
    }

    /// Removes job `id`'s folder and files (nothing when there are none).
    func remove(job id: String) {
        guard let folder = try? jobFolder(id) else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Removes every job folder whose job is not in `jobs` (left by a job deleted while its
    /// folder could not be, or by a server that stopped between the two).
    func removeAll(except jobs: Set<String>) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where !jobs.contains(name) && Self.isSafe(name) { remove(job: name) }
    }

    // MARK: Reads (a download's, on ``queue``)

    /// Opens the file of `type` of job `id` for reading; nil when there is none.
    func openForReading(job id: String, type: String) async throws(TrustStoreError) -> Int32? {
        let path = try path(job: id, type: type)
        let result: Result<Int32?, TrustStoreError> = await Self.run {
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 { return .success(descriptor) }
            if errno == ENOENT { return .success(nil) }
            return .failure(.unavailable("cannot open an export file: \(Self.systemMessage())"))
        }
        return try result.get()
    }

    /// Up to `count` bytes of the open file from `offset`, read into a new `Piece`; empty at its end.
    func read<Piece: ExportFilePiece>(_ descriptor: Int32, at offset: Int64, count: Int,
                                      as _: Piece.Type) async throws(TrustStoreError) -> Piece {
        let result: Result<Piece, TrustStoreError> = await Self.run {
            var failure: TrustStoreError?
            var piece = Piece(capacity: count)
            piece.append(upTo: count) { buffer in
                while true {
                    let read = pread(descriptor, buffer.baseAddress, count, off_t(offset))
                    if read >= 0 { return read }
                    if errno != EINTR {
                        failure = .unavailable("cannot read an export file: \(Self.systemMessage())")
                        return 0
                    }
                }
            }
            if let failure { return .failure(failure) }
            return .success(piece)
        }
        return try result.get()
    }

    /// Closes a file opened by ``openForReading(job:type:)``.
    func closeFile(_ descriptor: Int32) async {
        let _: Result<Void, TrustStoreError> = await Self.run {
            _ = close(descriptor)
            return .success(())
        }
    }

    // MARK: Helpers

    private static func run<T: Sendable>(_ body: @escaping @Sendable () -> Result<T, TrustStoreError>) async -> Result<T, TrustStoreError> {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Creates `path` with mode 0700 when it is missing; refuses anything there that is not a folder.
    private static func makeFolder(_ path: String) throws(TrustStoreError) {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw .unavailable("\(path) is not a folder") }
            return
        }
        if mkdir(path, mode_t(0o700)) != 0, errno != EEXIST { throw .unavailable("cannot create an export folder: \(systemMessage())") }
        _ = chmod(path, mode_t(0o700))
    }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
