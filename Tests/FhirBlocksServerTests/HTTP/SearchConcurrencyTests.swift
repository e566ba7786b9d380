import AsyncHTTPClient
import FhirBlocks
import FhirBlocksServer
import Synchronization
import Testing
import TestSupport

/// Heavy searches do not stall the server: with the heaviest searches allowed running at once
/// (20,000 resources, `_count=1000`, a descending date sort, a `_lastUpdated` probe per row),
/// `GET /health` and another patient's small search are answered, as every heavy search is. The
/// SQLite store runs its statements on threads of its own; were they run on Swift's
/// cooperative threads (two on a two-core machine), the heavy ones would hold every thread
/// and everything else would wait for them (SQLitePointReadersTests checks that part).
@Suite struct SearchConcurrencyTests {
    @Test func healthAndAnotherPatientsSearchAnswerWhileHeavySearchesRun() async throws {
        let world = try await TestWorld.make(.sqlite)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let heavyWallet = try await world.register(.wallet("w", firstName: "A"))
            let otherWallet = try await world.register(.wallet("w2", firstName: "B"))
            let heavyToken = try #require(world.json(try await world.clientCredentials(heavyWallet,
                                                                                       scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            let otherToken = try #require(world.json(try await world.clientCredentials(otherWallet,
                                                                                       scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            try await SearchLoad.fill(world.store, patient: heavyWallet.csi, count: 20_000)
            try await SearchLoad.fill(world.store, patient: otherWallet.csi, count: 3)
            let heavy = "\(server.baseURL)/fhir/Observation?code=8867-4&_lastUpdated=ne2019&_sort=-date&_count=1000"
            let small = "\(server.baseURL)/fhir/Observation?_count=1"

            // Completions in the order they were seen.
            let finished = Completions()
            let heavyCount = 4
            let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for _ in 0..<heavyCount {
                    group.addTask {
                        let response = try await HTTPExchange.send(.GET, heavy, headers: [("Authorization", "Bearer \(heavyToken)")])
                        finished.append("heavy")
                        return ("heavy", response.status)
                    }
                }
                group.addTask {
                    // Once the heavy requests are on their way (a pause, not a measurement).
                    try await Task.sleep(for: .milliseconds(30))
                    let health = try await HTTPExchange.send(.GET, "\(server.baseURL)/health")
                    finished.append("health")
                    let other = try await HTTPExchange.send(.GET, small, headers: [("Authorization", "Bearer \(otherToken)")])
                    finished.append("other")
                    return ("health+other", health.status * 1000 + other.status)
                }
                var statuses: [(String, Int)] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.filter { $0.0 == "heavy" }.allSatisfy { $0.1 == 200 }, "\(statuses)")
            #expect(statuses.contains { $0.0 == "health+other" && $0.1 == 200_200 }, "\(statuses)")
            // Every request is answered. Which finishes first is not asked: the whole suite runs
            // in this process beside the test and shares its cooperative threads, so orders vary
            // (SQLitePointReadersTests shows deterministically that blocked reads leave those
            // threads free).
            let order = finished.seen
            #expect(order.count == heavyCount + 2 && order.contains("health") && order.contains("other"), "\(order)")
        }
    }
}

/// Names appended from concurrent tasks, in the order they came.
final class Completions: Sendable {
    private let names = Mutex<[String]>([])

    func append(_ name: String) {
        names.withLock { $0.append(name) }
    }

    var seen: [String] { names.withLock { $0 } }
}
