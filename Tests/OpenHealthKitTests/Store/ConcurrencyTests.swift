import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Many tasks at once")
struct ConcurrencyTests {
    @Test("Concurrent writers and readers on one file: every save lands once, readers see whole batches")
    func writersAndReaders() async throws {
        let folder = TemporaryFolder()
        let writers = 4
        let batches = 15
        let batchSize = 20
        let store = TestStores.owner(folder)
        try store.open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    // Each writer uses its own store object on the same file, like separate processes.
                    let own = TestStores.owner(folder)
                    for batch in 0..<batches {
                        let base = Double((writer * batches + batch) * batchSize)
                        try await own.save((0..<batchSize).map { Samples.steps(1, at: (base + Double($0)) * 60, minutes: 1) })
                    }
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<20 {
                        let count = try await store.runSampleQuery(HKQuantityType(.stepCount)).count
                        #expect(count % batchSize == 0, "a reader saw a half-written batch")
                        let statistics = try? await store.runStatisticsQuery(HKQuantityType(.stepCount), options: .cumulativeSum)
                        let sum = statistics?.sumQuantity()?.doubleValue(for: .count()) ?? 0
                        #expect(Int(sum) % batchSize == 0)
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try await store.runSampleQuery(HKQuantityType(.stepCount))
        #expect(all.count == writers * batches * batchSize)
        #expect(Set(all.map(\.uuid)).count == all.count)
        let changes = try await store.runAnchoredQuery(HKQuantityType(.stepCount), anchor: nil)
        #expect(changes.added.count == all.count)
    }
}
