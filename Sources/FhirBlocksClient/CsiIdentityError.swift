import CommonSupport

/// Why an identity file could not be read or written. Never contains key material or the
/// file's contents.
public enum CsiIdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read (`reason` is the system's message).
    case cannotRead(path: String, reason: String)
    /// The file could not be created or written.
    case cannotWrite(path: String, reason: String)
    /// The file exists and overwriting was not asked for.
    case alreadyExists(path: String)
    /// The path is not a regular file (a directory, a device, a symbolic link).
    case notARegularFile(path: String)
    /// The file belongs to another user.
    case notOwner(path: String)
    /// The file can be read or written by the group or by others (`mode` is the permission bits).
    case insecurePermissions(path: String, mode: UInt32)
    /// The file is larger than an identity can be.
    case tooLarge(path: String)
    /// The file is not an identity (`reason` names the member, never its value).
    case malformed(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read identity file \(path): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write identity file \(path): \(reason)"
        case .alreadyExists(let path): "identity file \(path) already exists; move it away or choose another file"
        case .notARegularFile(let path): "identity file \(path) is not a regular file"
        case .notOwner(let path): "identity file \(path) belongs to another user"
        case .insecurePermissions(let path, let mode):
            "identity file \(path) is readable or writable by others (mode \(String(mode, radix: 8, uppercase: false))); "
                + "it holds a private key: run chmod 600 \(path)"
        case .tooLarge(let path): "identity file \(path) is too large to be an identity"
        case .malformed(let path, let reason): "identity file \(path) is not a FhirBlocks identity: \(reason)"
        }
    }
}

extension CsiIdentityError {
    /// The identity-file error for a secret-file error.
    init(_ error: SecretFileError) {
        switch error {
        case .alreadyExists(let path): self = .alreadyExists(path: path)
        case .cannotWrite(let path, let reason): self = .cannotWrite(path: path, reason: reason)
        case .missing(let path): self = .cannotRead(path: path, reason: "No such file or directory")
        case .cannotRead(let path, let reason): self = .cannotRead(path: path, reason: reason)
        case .notARegularFile(let path): self = .notARegularFile(path: path)
        case .notOwner(let path): self = .notOwner(path: path)
        case .insecurePermissions(let path, let mode): self = .insecurePermissions(path: path, mode: mode)
        case .tooLarge(let path, _): self = .tooLarge(path: path)
        }
    }
}
