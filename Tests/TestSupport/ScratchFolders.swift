import Foundation
import Synchronization

/// Folders under the system's temporary directory for stores and files that live as long as the
/// test process (a server's SQLite store, a deployment's data folder): each is removed when the
/// process exits normally, so a run of the suite leaves nothing behind in `/tmp` whether its tests pass or fail
/// (a crash or a SIGKILL still leaves them).
public enum ScratchFolders {
    private static let made = Mutex<[URL]>([])
    private static let removalRegistered: Bool = {
        atexit { ScratchFolders.removeAll() }
        return true
    }()

    /// A new folder's URL, `PREFIX-UUID`, not yet created (the store or test creates it), removed
    /// with everything in it when the test process exits.
    public static func url(_ prefix: String) -> URL {
        _ = removalRegistered
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        made.withLock { $0.append(url) }
        return url
    }

    private static func removeAll() {
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}
