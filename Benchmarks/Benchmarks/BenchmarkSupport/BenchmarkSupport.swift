import Foundation
import OpenHealthKit
import Synchronization

/// A fresh folder under the system's temporary directory, removed by `remove()`.
public struct ScratchFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Creates `openhealthkit-bench-LABEL-UUID`.
    public init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("openhealthkit-bench-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Removes the folder and what it holds.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// A folder for a fixture that lives as long as the benchmark process (a server and its
    /// store): removed when the process exits, so repeated runs do not fill the disk.
    public static func untilExit(_ label: String) throws -> ScratchFolder {
        let folder = try ScratchFolder(label)
        ProcessScratch.shared.keep(folder)
        return folder
    }
}

/// The folders ``ScratchFolder/untilExit(_:)`` made, removed by an `atexit` handler.
private final class ProcessScratch: Sendable {
    static let shared: ProcessScratch = {
        atexit { ProcessScratch.shared.folders.withLock { $0 }.forEach { $0.remove() } }
        return ProcessScratch()
    }()

    let folders = Mutex<[ScratchFolder]>([])

    func keep(_ folder: ScratchFolder) { folders.withLock { $0.append(folder) } }
}

/// What the store benchmarks share.
public enum BenchmarkStore {
    /// A new, encrypted, file-backed store in `folder`, opened (key created) before any timing.
    public static func open(in folder: ScratchFolder) throws -> HKHealthStore {
        let configuration = HKHealthStore.Configuration(
            location: .file(folder.url.appendingPathComponent("health.sqlite")),
            key: .keyFile(folder.url.appendingPathComponent("health.key")),
            role: .owner)
        let store = HKHealthStore(configuration: configuration)
        try store.open()
        return store
    }

    /// `count` per second of `elapsed`, rounded.
    public static func rate(_ count: Int, _ elapsed: Duration) -> Int {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return seconds > 0 ? Int((Double(count) / seconds).rounded()) : 0
    }
}
