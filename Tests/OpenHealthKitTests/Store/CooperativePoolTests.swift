import Dispatch
import Foundation
import Synchronization
import Testing
@testable import OpenHealthKit

@Suite("The async API leaves the cooperative thread pool free")
struct CooperativePoolTests {
    /// Holds the store's writer connection from a Dispatch thread until released (or, so that a
    /// failing test does not hang, until ten minutes have passed, far beyond any scheduling delay of a loaded full run: the assertion then fails).
    private final class WriterHold: Sendable {
        private let held = DispatchSemaphore(value: 0)
        private let release = DispatchSemaphore(value: 0)
        private let released = Mutex(false)

        init(_ database: HealthDatabase) {
            DispatchQueue.global().async { [self] in
                try? database.write { _ in
                    held.signal()
                    _ = release.wait(timeout: .now() + 600)
                    released.withLock { $0 = true }
                }
            }
        }

        /// Waits (on a Dispatch thread, not a cooperative one) until the writer is held.
        func whenHeld() async {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { [self] in
                    held.wait()
                    continuation.resume()
                }
            }
        }

        var isReleased: Bool { released.withLock { $0 } }

        func end() { release.signal() }
    }

    /// The cooperative pool has one thread per core. Many more saves than that wait for a busy
    /// writer at once; if each held a thread while it waited (blocking GRDB access), the pool
    /// would be exhausted before all of them had started, and this test's own task could not
    /// run again until the writer was released. So all of them starting, and this task seeing
    /// it, while the writer is still held, shows the waits are suspensions.
    @Test("More saves than the pool has threads wait for a busy writer, and other tasks still run")
    func waitingSavesDoNotHoldThreads() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try store.open()
        let hold = WriterHold(try store.engine.database())
        await hold.whenHeld()
        let waiting = 4 * ProcessInfo.processInfo.activeProcessorCount + 8
        let (started, startedContinuation) = AsyncStream.makeStream(of: Int.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<waiting {
                group.addTask {
                    startedContinuation.yield(index)
                    try await store.save(Samples.steps(1, at: Double(index) * 60))
                }
            }
            var count = 0
            for await _ in started {
                count += 1
                if count == waiting { break }
            }
            #expect(!hold.isReleased, "the saves held the pool's threads until the writer was released")
            hold.end()
            try await group.waitForAll()
        }
        #expect(try await store.runSampleQuery(HKQuantityType(.stepCount)).count == waiting)
    }

    /// The same for queries through the callback API: `execute` returns at once, and queries
    /// reading while a writer holds the database do not stop other tasks.
    @Test("Callback queries run on tasks that suspend: many at once, and a save waiting for the writer, leave the pool free")
    func callbackQueriesAndAWaitingSave() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.save((0..<10).map { Samples.steps(1, at: Double($0) * 60) })
        let hold = WriterHold(try store.engine.database())
        await hold.whenHeld()
        let queries = 4 * ProcessInfo.processInfo.activeProcessorCount + 8
        let (results, resultsContinuation) = AsyncStream.makeStream(of: Int.self)
        for _ in 0..<queries {
            // A snapshot read (WAL): it does not wait for the writer.
            store.execute(HKSampleQuery(sampleType: HKQuantityType(.stepCount), predicate: nil, limit: HKObjectQueryNoLimit,
                                        sortDescriptors: nil) { _, samples, _ in resultsContinuation.yield(samples?.count ?? -1) })
        }
        let saves = (0..<queries).map { index in
            Task { try await store.save(Samples.steps(1, at: Double(1_000 + index) * 60)) }
        }
        var counts: [Int] = []
        for await count in results {
            counts.append(count)
            if counts.count == queries { break }
        }
        #expect(counts == Array(repeating: 10, count: queries))
        #expect(!hold.isReleased, "the queries or the waiting saves held the pool's threads until the writer was released")
        hold.end()
        for save in saves { try await save.value }
        #expect(try await store.runSampleQuery(HKQuantityType(.stepCount)).count == 10 + queries)
    }
}
