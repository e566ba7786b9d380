import Synchronization

/// The server-wide cap on Bulk Data export file downloads sent at once
/// (``ServerConfiguration/maximumExportDownloads``): each download holds up to three pieces of
/// its file in memory (one being written, one waiting to be, one read ahead: 1 MiB each from a
/// file on disk, a chunk of 1 to about 3 MiB from PostgreSQL), so without a cap the memory of
/// many clients' downloads has no bound. A download takes a ``Permit`` before its answer starts; past the cap there is none,
/// and the route answers 503 at once. Nothing ever waits for a place: ``take()`` is a counter
/// under a lock, so no cooperative thread is blocked.
final class ExportDownloads: Sendable {
    /// The most downloads sent at once.
    let limit: Int
    private let held = Mutex(0)

    /// A cap of `limit` downloads (at least 1).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// How many downloads hold a place now.
    var count: Int { held.withLock { $0 } }

    /// A place for one download, or nil when ``limit`` downloads hold one.
    func take() -> Permit? {
        let taken = held.withLock { held -> Bool in
            guard held < limit else { return false }
            held += 1
            return true
        }
        return taken ? Permit(self) : nil
    }

    fileprivate func giveBack() {
        held.withLock { $0 = max(0, $0 - 1) }
    }

    /// One download's place, given back once: by ``release()``, or when the permit goes away (a
    /// response whose body is never sent, such as one to a client gone before its head).
    final class Permit: Sendable {
        private let downloads: ExportDownloads
        private let released = Atomic(false)

        fileprivate init(_ downloads: ExportDownloads) {
            self.downloads = downloads
        }

        /// Gives the place back (the first call only).
        func release() {
            if !released.exchange(true, ordering: .acquiringAndReleasing) { downloads.giveBack() }
        }

        deinit { release() }
    }
}
