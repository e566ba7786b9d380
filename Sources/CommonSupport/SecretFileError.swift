/// Why a secret file could not be written or read. Messages name the path, never the contents.
package enum SecretFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file exists and was not to be replaced.
    case alreadyExists(path: String)
    /// Writing failed (the system's reason).
    case cannotWrite(path: String, reason: String)
    /// The file does not exist.
    case missing(path: String)
    /// Reading failed (the system's reason).
    case cannotRead(path: String, reason: String)
    /// A symbolic link, a folder or a device where a regular file was expected.
    case notARegularFile(path: String)
    /// The file belongs to another user.
    case notOwner(path: String)
    /// The group or others may read or write the file.
    case insecurePermissions(path: String, mode: UInt32)
    /// The file is larger than any such secret.
    case tooLarge(path: String, maximum: Int)

    package var description: String {
        switch self {
        case .alreadyExists(let path): "\(path) already exists; it is left as it is"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .missing(let path): "\(path) does not exist"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .notARegularFile(let path): "\(path) is not a regular file"
        case .notOwner(let path): "\(path) belongs to another user"
        case .insecurePermissions(let path, let mode):
            "\(path) is open to other users (mode \(String(mode, radix: 8))); it holds a secret: run chmod 600 \(path)"
        case .tooLarge(let path, let maximum): "\(path) is larger than \(maximum) bytes"
        }
    }
}
