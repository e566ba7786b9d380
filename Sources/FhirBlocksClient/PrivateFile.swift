#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes files that hold secrets: created with mode 0600 (never wider, whatever the
/// umask), written to a temporary file and moved into place, and read only when they are
/// regular files of the current user that neither the group nor others may read or write.
enum PrivateFile {
    /// Writes `bytes` to `path` with mode 0600. Without `overwrite`, an existing file is
    /// ``CsiIdentityError/alreadyExists(path:)``.
    static func save(_ bytes: [UInt8], to path: String, overwrite: Bool) throws(CsiIdentityError) {
        var random = SystemRandomNumberGenerator()
        let temporary = path + ".tmp-" + String(random.next() as UInt64, radix: 36)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: systemMessage()) }
        var written = 0
        var failure: String?
        if fchmod(descriptor, mode_t(0o600)) != 0 { failure = systemMessage() }
        while failure == nil, written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                failure = systemMessage()
            } else {
                written += result
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = systemMessage() }
        if close(descriptor) != 0, failure == nil { failure = systemMessage() }
        if let failure {
            unlink(temporary)
            throw .cannotWrite(path: path, reason: failure)
        }
        if overwrite {
            guard rename(temporary, path) == 0 else {
                let message = systemMessage()
                unlink(temporary)
                throw .cannotWrite(path: path, reason: message)
            }
        } else {
            // link(2) refuses an existing target atomically.
            guard link(temporary, path) == 0 else {
                let code = errno
                let message = systemMessage()
                unlink(temporary)
                if code == EEXIST { throw .alreadyExists(path: path) }
                throw .cannotWrite(path: path, reason: message)
            }
            unlink(temporary)
        }
    }

    /// Reads `path` after checking that it is a regular file owned by the current user with no
    /// group or other permission bits, and at most `maximumSize` bytes.
    static func load(_ path: String, maximumSize: Int) throws(CsiIdentityError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .notARegularFile(path: path) }
            throw .cannotRead(path: path, reason: systemMessage())
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .cannotRead(path: path, reason: systemMessage()) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        guard status.st_uid == geteuid() else { throw .notOwner(path: path) }
        let permissions = UInt32(status.st_mode & 0o777)
        guard permissions & 0o077 == 0 else { throw .insecurePermissions(path: path, mode: permissions) }
        guard Int(status.st_size) <= maximumSize else { throw .tooLarge(path: path) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: path, reason: systemMessage())
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
            guard bytes.count <= maximumSize else { throw .tooLarge(path: path) }
        }
        return bytes
    }

    /// The current `errno` as text.
    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
