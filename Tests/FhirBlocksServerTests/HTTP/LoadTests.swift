import AsyncHTTPClient
import ExactJSON
import FhirBlocks
import FhirBlocksServer
import NIOHTTP1
import Testing
import TestSupport

/// A bounded load over loopback: 16 concurrent clients make 800 protected reads and 80 token
/// requests in all. Every request must succeed and leave its audit entry, and the audit log
/// must stay one dense, verifiable tree. (Counts are bounded; nothing here asserts a time.)
@Suite struct LoadTests {
    @Test(arguments: TestBackend.available)
    func boundedConcurrentLoad(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend, checkpointEvery: 50)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let app = try await world.register(.app("a"))
            #expect(try await world.grant(from: wallet, to: [app], resource: "*", confidentiality: "N", sensitivity: []).status == 200)
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            let body = Array(#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"pulse"}}"#.utf8)
            #expect(await world.fhir("PUT", "Observation/o1", token: walletToken, body: body).status == 201)
            let startCount = try await world.store.auditCount()

            let clients = 16, readsPerClient = 50, tokensPerClient = 5
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<clients {
                    group.addTask {
                        var seen: [Int] = []
                        var token = ""
                        for index in 0..<(readsPerClient + tokensPerClient) {
                            if index % 11 == 0 {
                                let form = TestWorld.form([("grant_type", "client_credentials"), ("scope", "patient/Observation.rs"),
                                                           ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                                                           ("client_assertion", try world.assertion(app, audience: "\(TestWorld.base)/oauth/token"))])
                                let response = try await HTTPExchange.send(.POST, "\(server.baseURL)/oauth/token",
                                                                           headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
                                seen.append(response.status)
                                token = world.json(ServiceResponse(body: response.body))["access_token"]?.stringValue ?? ""
                            } else {
                                seen.append(try await HTTPExchange.send(.GET, "\(server.baseURL)/fhir/Observation/o1",
                                                                        headers: [("Authorization", "Bearer \(token)")]).status)
                            }
                        }
                        return seen
                    }
                }
                var all: [Int] = []
                for try await statuses in group { all += statuses }
                return all
            }
            #expect(statuses.count == clients * (readsPerClient + tokensPerClient))
            #expect(statuses.allSatisfy { $0 == 200 }, "non-200 answers: \(statuses.filter { $0 != 200 }.count)")
            // One audit entry per token and per read, indexes dense.
            let count = try await world.store.auditCount()
            #expect(count - startCount == statuses.count)
            let records = try await world.store.auditRecords(from: 0, limit: count + 10)
            #expect(records.map(\.index) == Array(0..<count) && records.allSatisfy(\.isSelfConsistent))
            // The newest checkpoint's root is the root of the stored leaves.
            let note = String(decoding: try await HTTPExchange.send(.GET, "\(server.baseURL)/audit/checkpoint").body, as: UTF8.self)
            let checkpoint = try SignedCheckpoint(text: note)
            try checkpoint.verify(keyName: world.service.configuration.checkpointKeyName, publicKey: world.service.auditKey.publicKey)
            #expect(checkpoint.checkpoint.rootHash == MerkleTree.rootHash(leaves: Array(records.prefix(checkpoint.checkpoint.treeSize).map(\.leafHash))))
            // Every read waited once for its grouped entry; each group's write was timed once.
            let metrics = String(decoding: try await HTTPExchange.send(.GET, "\(server.baseURL)/metrics").body, as: UTF8.self)
            func value(_ name: String) -> Double? {
                metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            let reads = Double(clients * readsPerClient)
            #expect(value("fhirblocks_audit_wait_seconds_count") == reads, "\(metrics)")
            let groups = try #require(value("fhirblocks_audit_group_commits_total"))
            #expect(groups >= 1 && groups <= reads && value("fhirblocks_audit_group_write_seconds_count") == groups)
        }
    }
}
