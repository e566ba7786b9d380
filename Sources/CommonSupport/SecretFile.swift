#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets (private keys, key files, identities, cached issuer documents),
/// written and read one careful way.
///
/// Writing: a temporary file beside the target, created exclusively with mode 0600 (never wider,
/// whatever the umask, and never through a symbolic link), written completely, `fsync`ed, then
/// put in place atomically: `link(2)` when the target must not exist (an existing file is
/// ``SecretFileError/alreadyExists(path:)``, decided by the kernel, without a check-then-write
/// race), `rename(2)` when it may be replaced. A reader never sees a partial file, and a crash
/// leaves the old file or the new one.
///
/// Reading: only a regular file of the current user that neither the group nor others may read
/// or write, up to a size limit.
package enum SecretFile {
    /// Creates `path` holding `bytes` with mode 0600.
    /// - Parameter replacing: whether an existing file may be replaced (atomically); when false,
    ///   an existing file is left as it is and the call throws ``SecretFileError/alreadyExists(path:)``.
    package static func save(_ bytes: some Collection<UInt8>, to path: String, replacing: Bool) throws(SecretFileError) {
        let contents = Array(bytes)
        var random = SystemRandomNumberGenerator()
        let temporary = path + ".tmp-" + String(random.next() as UInt64, radix: 36)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: systemMessage()) }
        var failure: String?
        // The mode passed to open(2) is masked by the umask; fchmod makes it exactly 0600.
        if fchmod(descriptor, mode_t(0o600)) != 0 { failure = systemMessage() }
        var written = 0
        while failure == nil, written < contents.count {
            let result = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
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
        if replacing {
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
        syncFolder(of: path)
    }

    /// Creates the folder (and its parents) with mode 0700 when it is missing.
    package static func createFolder(_ path: String) throws(SecretFileError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw .cannotWrite(path: path, reason: "not a folder") }
            return
        }
        let parent = parentFolder(of: path)
        if parent != path, !parent.isEmpty { try createFolder(parent) }
        if mkdir(path, mode_t(0o700)) != 0, errno != EEXIST { throw .cannotWrite(path: path, reason: systemMessage()) }
    }

    /// The contents of `path`, after checking that it is a regular file owned by the current user
    /// with no group or other permission bits, and at most `maximumSize` bytes.
    package static func load(_ path: String, maximumSize: Int) throws(SecretFileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .notARegularFile(path: path) }
            if errno == ENOENT { throw .missing(path: path) }
            throw .cannotRead(path: path, reason: systemMessage())
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .cannotRead(path: path, reason: systemMessage()) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        guard status.st_uid == geteuid() else { throw .notOwner(path: path) }
        let permissions = UInt32(status.st_mode & 0o777)
        guard permissions & 0o077 == 0 else { throw .insecurePermissions(path: path, mode: permissions) }
        guard Int(status.st_size) <= maximumSize else { throw .tooLarge(path: path, maximum: maximumSize) }
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
            guard bytes.count <= maximumSize else { throw .tooLarge(path: path, maximum: maximumSize) }
        }
        return bytes
    }

    /// Whether something exists at `path` (a symbolic link counts, even a dangling one).
    package static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Makes the new directory entry durable: fsync of the containing folder (best effort).
    private static func syncFolder(of path: String) {
        let descriptor = open(parentFolder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// The current `errno` as text.
    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
