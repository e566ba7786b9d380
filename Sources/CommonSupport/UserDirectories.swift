import Foundation

/// The current user's home and XDG base directories, as the environment says.
///
/// `HOME` is read from the environment first: Foundation's `homeDirectoryForCurrentUser` reads
/// the password database on Linux, so a process run with `HOME=/some/folder` (under `sudo -E`,
/// in a container, in a test) would otherwise write into the account's home instead. The XDG
/// variables are used only when they hold an absolute path, as the XDG Base Directory
/// Specification requires ("If an implementation encounters a relative path in any of these
/// variables it should consider the path invalid and ignore it").
package enum UserDirectories {
    /// `$HOME` when set to an absolute path, else the account's home directory.
    package static func home(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = absolutePath(environment["HOME"]) {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// `$XDG_DATA_HOME` when absolute, else `HOME/.local/share`.
    package static func dataHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = absolutePath(environment["XDG_DATA_HOME"]) {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return home(environment: environment).appendingPathComponent(".local/share", isDirectory: true)
    }

    /// `$XDG_CACHE_HOME` when absolute, else `HOME/.cache`.
    package static func cacheHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = absolutePath(environment["XDG_CACHE_HOME"]) {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return home(environment: environment).appendingPathComponent(".cache", isDirectory: true)
    }

    /// The value when it is an absolute path (the XDG specification ignores relative ones).
    private static func absolutePath(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return value
    }
}
