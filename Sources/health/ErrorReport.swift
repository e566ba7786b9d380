import ArgumentParser
import Foundation
import NIOCore
import OpenHealthKit

/// How an error that ended a command is told to the person at the terminal: one line in words
/// (no Swift type names, no usage text) and the exit status of docs/cli.md.
///
/// Used for every error a command throws once its arguments are parsed; the argument parser's
/// own usage errors are printed by swift-argument-parser, with the command's usage (see
/// `HealthCommand.main()`).
struct ErrorReport {
    /// The line to print after `Error: `, or nil when the command has printed its answer itself
    /// (an `ExitCode` after a verdict such as INVALID).
    let message: String?
    /// The exit status.
    let status: CLIExitStatus

    init(_ error: any Error) {
        switch error {
        case let code as ExitCode:
            message = nil
            status = code == .success ? .success : code.rawValue == CLIExitStatus.refused.rawValue ? .refused : .usageOrIO
        case let error as UsageError:
            (message, status) = (error.description, .usageOrIO)
        case let error as ValidationError:
            (message, status) = (error.message, .usageOrIO)
        case let error as InputRefused:
            (message, status) = (error.description, .refused)
        case let error as StoreOpenError:
            (message, status) = (error.description, error.status)
        case let error as HealthStoreError:
            (message, status) = Self.describe(error)
        case let error as HKError:
            (message, status) = Self.describe(error)
        case let error as CocoaError:
            (message, status) = (Self.describe(error), .usageOrIO)
        case let error as POSIXError:
            (message, status) = (Self.reason(errno: error.code.rawValue), .usageOrIO)
        case let error as IOError:
            // A socket that could not be bound (`health ui`, `health serve`) or another system
            // call of the network stack: NIO's description names its internal function.
            let why = Self.reason(errno: error.errnoCode)
            (message, status) = (error.description.hasPrefix("bind(") ? "cannot listen on that port: \(why) (choose another with --port)"
                                                                     : "a network operation failed: \(why)", .usageOrIO)
        case let error as any LocalizedError where error.errorDescription != nil:
            (message, status) = (error.errorDescription ?? "", .refused)
        default:
            (message, status) = (String(describing: error), .refused)
        }
    }

    /// A store error in words. An unreadable or unusable store is an I/O error (2); a wrong
    /// key, a tampered or damaged record, or a refused request is a refusal (1).
    static func describe(_ error: HealthStoreError) -> (String, CLIExitStatus) {
        let message = plainSQLite(error.message)
        switch error.kind {
        case .io: return ("the store could not be read or written: \(message)", .usageOrIO)
        case .keyUnavailable: return ("the store's key cannot be used: \(message)", .usageOrIO)
        case .unsupportedSchema: return ("the store cannot be read: \(message)", .usageOrIO)
        case .corruptDatabase: return ("the store is damaged: \(message)", .refused)
        case .tamperedRecord: return ("the store was altered outside OpenHealthKit: \(message)", .refused)
        default: return (message, .refused)
        }
    }

    /// A HealthKit error in words: its message, after what kind of no it is.
    static func describe(_ error: HKError) -> (String, CLIExitStatus) {
        switch error.code {
        case .errorDatabaseInaccessible, .errorHealthDataUnavailable:
            return ("the store cannot be read now: \(error.message)", .usageOrIO)
        case .errorAuthorizationDenied, .errorAuthorizationNotDetermined, .errorRequiredAuthorizationDenied:
            return ("not allowed: \(error.message)", .refused)
        case .errorInvalidArgument:
            return ("the store refused it: \(error.message)", .refused)
        default:
            return (error.message, .refused)
        }
    }

    /// Why an operation failed, in words, for a message that already says what and on which
    /// file: `no such file` for a missing folder, the C library's words for a system error.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as CocoaError: return why(error)
        case let error as POSIXError: return reason(errno: error.code.rawValue)
        default: return ErrorReport(error).message ?? "\(error)"
        }
    }

    /// A file error in words: what could not be done, to which file, and why.
    static func describe(_ error: CocoaError) -> String {
        let path = (error.userInfo[NSFilePathErrorKey] as? String) ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
        let writing = error.code.rawValue >= CocoaError.fileWriteUnknown.rawValue
            && error.code.rawValue <= CocoaError.fileWriteVolumeReadOnly.rawValue
        guard let path else { return "\(writing ? "cannot write a file" : "cannot read a file"): \(why(error))" }
        return "\(writing ? "cannot write" : "cannot read") \(path): \(why(error))"
    }

    /// The reason part of a file error: the system's words when it has them (`no such file or
    /// directory`, `permission denied`), else the error's kind in words.
    private static func why(_ error: CocoaError) -> String {
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return reason(errno: Int32(underlying.code))
        }
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or directory"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileWriteOutOfSpace: return "no space left on device"
        case .fileWriteFileExists: return "the file already exists"
        case .fileReadCorruptFile, .fileReadUnknownStringEncoding, .fileReadInapplicableStringEncoding:
            return "its contents cannot be read as text"
        case .fileWriteVolumeReadOnly: return "read-only file system"
        default: return "the file cannot be used"
        }
    }

    /// The C library's words for an `errno` value, in lower case ("no such file or directory").
    static func reason(errno code: Int32) -> String {
        let text = String(cString: strerror(code))
        guard let first = text.first else { return "error \(code)" }
        return first.lowercased() + text.dropFirst()
    }

    /// SQLite's words in a store message, `disk I/O error` in `… (SQLite: 10 (disk I/O error))`.
    static func sqliteReason(_ message: String) -> String? {
        guard let start = message.range(of: "(SQLite: ") else { return nil }
        let tail = message[start.upperBound...]
        guard let open = tail.firstIndex(of: "("), let close = tail.firstIndex(of: ")"), open < close else { return nil }
        return String(tail[tail.index(after: open)..<close])
    }

    /// A store message without SQLite's result-code numbers: `… (SQLite: 10 (disk I/O error))`
    /// becomes `… (disk I/O error)`, and a bare `(SQLite: 14)` is dropped.
    static func plainSQLite(_ message: String) -> String {
        guard let start = message.range(of: " (SQLite: ") else { return message }
        let tail = message[start.upperBound...]
        if let open = tail.firstIndex(of: "("), let close = tail.firstIndex(of: ")"), open < close {
            return String(message[..<start.lowerBound]) + " (" + String(tail[tail.index(after: open)..<close]) + ")"
                + String(tail[tail.index(after: close)...].dropFirst())
        }
        guard let close = tail.firstIndex(of: ")") else { return message }
        return String(message[..<start.lowerBound]) + String(tail[tail.index(after: close)...])
    }
}

/// A store that could not be opened, told with its path; thrown by `StoreOptions.openStore()`.
struct StoreOpenError: Error, CustomStringConvertible {
    let description: String
    /// 2 when the store cannot be read (a folder, a missing key file, not a store); 1 when the
    /// key does not open it.
    let status: CLIExitStatus
}
