@testable import HealthWebApp
import Foundation
import Synchronization
import Testing

/// However many uploads arrive together, at most ``UploadGate/permits`` hold their bodies in
/// memory at once; the others wait in order, and past the waiting room they are refused.
@Suite("Upload gate")
struct UploadGateTests {
    @Test("Eight uploads from the page at once: all answered, never more than two bodies held")
    func concurrentUploadsAreBounded() async throws {
        let fixture = try await WebTestFixture.make(days: 1, uploadLimit: 8 << 20)
        let statuses = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let resource = RecordsPageTests.observation.replacingOccurrences(of: "\"id\":\"", with: "\"id\":\"g\(index)-")
                        let body = MultipartBody().field("csrf", client.csrf(cookie))
                            .file("files", filename: "r\(index).json", Array(resource.utf8) + Array(repeating: 0x20, count: 1 << 20),
                                  type: "application/fhir+json").closed
                        return Int(try await client.send(.post, "/records/import", cookie: cookie, multipart: body).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses.count == 8 && statuses.allSatisfy { $0 == 303 }, "\(statuses)")
        #expect(fixture.webApp.uploadGate.mostInUse <= fixture.webApp.uploadGate.permits)
        #expect(fixture.webApp.uploadGate.mostInUse >= 1)
    }

    @Test("Permits are handed over in order, and a full waiting room refuses at once")
    func permitsAndRefusal() async throws {
        let gate = UploadGate(permits: 1, maximumWaiting: 1)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let log = GateLog()
        let holder = Task {
            try await gate.withPermit {
                log.append("first")
                for await _ in release { break }
            }
        }
        while log.names.isEmpty { await Task.yield() }
        let waiter = Task { try await gate.withPermit { log.append("second") } }
        while gate.waitingCount == 0 { await Task.yield() }
        // The permit is held and the waiting room is full: refused at once, nothing run.
        let third: Void? = try await gate.withPermit { log.append("third") }
        #expect(third == nil)
        releaser.yield()
        releaser.finish()
        #expect(try await holder.value != nil)
        #expect(try await waiter.value != nil)
        #expect(log.names == ["first", "second"])
        #expect(gate.mostInUse == 1 && gate.waitingCount == 0)
    }
}

/// Names appended from concurrent tasks, in order.
final class GateLog: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ name: String) {
        storage.withLock { $0.append(name) }
    }

    var names: [String] { storage.withLock { $0 } }
}
