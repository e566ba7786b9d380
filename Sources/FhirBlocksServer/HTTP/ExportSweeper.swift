import FhirBlocksStore
import Logging
import ServiceLifecycle

/// Deletes the Bulk Data export jobs whose retention ran out (``ServerConfiguration/exportRetentionSeconds``),
/// and their files, once when the server starts and then every ``periodSeconds(retentionSeconds:)``:
/// expired files leave the disk whether or not anyone kicks off another export.
struct ExportSweeper: Service {
    /// The store whose expired jobs are deleted.
    let store: any ExportStore
    /// The service's clock (what "expired" is measured by).
    let clock: TrustClock
    /// Seconds between sweeps.
    let periodSeconds: Int
    let logger: Logger

    /// A quarter of the retention, at least a second and at most an hour.
    static func periodSeconds(retentionSeconds: Int64) -> Int {
        Int(min(3_600, max(1, retentionSeconds / 4)))
    }

    func run() async throws {
        await sweep()
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(periodSeconds))
                await sweep()
            }
        }
    }

    /// One sweep; a store failure is logged and the next sweep tries again.
    func sweep() async {
        do {
            let deleted = try await store.deleteExpiredExportJobs(now: clock.now())
            if deleted > 0 { logger.info("expired bulk export jobs deleted", metadata: ["jobs": "\(deleted)"]) }
        } catch {
            logger.error("deleting expired bulk export jobs failed", metadata: ["reason": "\(error.description)"])
        }
    }
}
