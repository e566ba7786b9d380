import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// Observer and long-running queries hear of changes that another store object (or another
/// process) commits to the same file.
@Suite("Changes by other writers", .timeLimit(.minutes(10)))
struct OtherWriterNotificationTests {
    private let steps = HKQuantityType(.stepCount)

    @Test("A second store object's save and delete wake an observer; its own saves are not told twice")
    func anotherObjectsChanges() async throws {
        let folder = TemporaryFolder()
        let watcher = TestStores.owner(folder)
        let other = HKHealthStore(configuration: .init(location: .file(folder.database), key: .keyFile(folder.keyFile),
                                                       source: HKSource(name: "Other", bundleIdentifier: "org.example.other"), role: .owner))
        let fired = Inbox<Int>()
        let query = HKObserverQuery(sampleType: steps, predicate: nil) { _, done, _ in
            fired.append(1)
            done()
        }
        watcher.execute(query)
        #expect(await fired.wait(for: 1).count == 1)

        // Stepping the watcher by hand: nothing new, nothing told.
        #expect(await !watcher.engine.checkForOtherWriters())

        // The observer's own save is told once, in process; the watcher leaves it out.
        try await watcher.save(Samples.steps(10, at: 0))
        #expect(await fired.wait(for: 2).count == 2)
        #expect(await !watcher.engine.checkForOtherWriters())

        // Another object's save: the watcher (running on its own, or stepped) tells the query.
        let sample = Samples.steps(20, at: 600)
        try await other.save(sample)
        #expect(await fired.wait(for: 3).count >= 3)
        try await other.delete(sample)
        #expect(await fired.wait(for: 4).count >= 4)

        watcher.stop(query)
    }

    @Test("A long-running anchored query delivers another object's samples")
    func anchoredUpdates() async throws {
        let folder = TemporaryFolder()
        let watcher = TestStores.owner(folder)
        let other = HKHealthStore(configuration: .init(location: .file(folder.database), key: .keyFile(folder.keyFile),
                                                       source: HKSource(name: "Other", bundleIdentifier: "org.example.other"), role: .owner))
        let delivered = Inbox<Int>()
        let query = HKAnchoredObjectQuery(type: steps, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, added, _, _, _ in
            delivered.append(added?.count ?? 0)
        }
        query.updateHandler = { _, added, _, _, _ in delivered.append(added?.count ?? 0) }
        watcher.execute(query)
        _ = await delivered.wait(for: 1)
        try await other.save([Samples.steps(1, at: 0), Samples.steps(2, at: 60)])
        let values = await delivered.wait(for: 2)
        #expect(values.dropFirst().reduce(0, +) == 2)
        watcher.stop(query)
    }
}
