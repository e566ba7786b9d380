import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import HTTPTestSupport
import Hummingbird
import NIOCore
import Synchronization
import Testing
import TestSupport

/// A backend client's `jwks_uri` is fetched at most once per `refetchSeconds`, whatever the
/// outcome, over real HTTP on 127.0.0.1: a URL that fails, or assertions naming unknown `kid`s,
/// sent many at once and again and again, cannot make the server fetch in a loop.
@Suite("backend key sets: fetched at most once per refetch window")
struct BackendKeySetResolverTests {
    @Test func aFailingKeySetURLIsFetchedOnceAWindowHoweverManyAssertionsNameIt() async throws {
        let server = try await KeySetServer.start(body: nil)
        defer { Task { await server.stop() } }
        let resolver = BackendKeySetResolver()
        let client = try Self.client(url: server.url)
        let now: Int64 = 1_800_000_000
        // Twenty assertions at once, then more within the window: one fetch, every one refused.
        let refusals = await withTaskGroup(of: BackendAssertionError?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do throws(BackendAssertionError) {
                        _ = try await resolver.keySet(of: client, kid: "a", now: now, allowingLoopback: true)
                        return nil
                    } catch { return error }
                }
            }
            return await group.reduce(into: [BackendAssertionError?]()) { $0.append($1) }
        }
        #expect(refusals.count == 20 && refusals.allSatisfy { $0?.reason.contains("500") == true })
        #expect(server.requests == 1)
        for second in [1, 10, 29] {
            await #expect(throws: BackendAssertionError.self) {
                _ = try await resolver.keySet(of: client, kid: "a", now: now + Int64(second), allowingLoopback: true)
            }
        }
        #expect(server.requests == 1)
        // After the window, one more fetch.
        await #expect(throws: BackendAssertionError.self) {
            _ = try await resolver.keySet(of: client, kid: "a", now: now + 30, allowingLoopback: true)
        }
        #expect(server.requests == 2)
    }

    @Test func unknownKidsRefetchOnceAWindowAndAKeptSetServesItsKids() async throws {
        let key = try BackendTestKey.es256("a")
        let keySet = JSONValue.object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.jwk]))]))
        let server = try await KeySetServer.start(body: JSONWriter.serialize(keySet))
        defer { Task { await server.stop() } }
        let resolver = BackendKeySetResolver()
        let client = try Self.client(url: server.url)
        let now: Int64 = 1_800_000_000
        // Ten assertions at once share one fetch.
        let found = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask { (try? await resolver.keySet(of: client, kid: "a", now: now, allowingLoopback: true))?.keys(kid: "a").count ?? 0 }
            }
            return await group.reduce(0, +)
        }
        #expect(found == 10)
        #expect(server.requests == 1)
        // A known kid within the set's lifetime: no fetch. An unknown kid within the window: the
        // kept set (which lacks it), no fetch; after the window, one fetch.
        #expect(try await resolver.keySet(of: client, kid: "a", now: now + 200, allowingLoopback: true).keys(kid: "a").count == 1)
        for second in [5, 15, 29] {
            #expect(try await resolver.keySet(of: client, kid: "rotated", now: now + Int64(second), allowingLoopback: true)
                .keys(kid: "rotated").isEmpty)
        }
        #expect(server.requests == 1)
        _ = try await resolver.keySet(of: client, kid: "rotated", now: now + 31, allowingLoopback: true)
        #expect(server.requests == 2)
        // Past the lifetime the known kid fetches again.
        _ = try await resolver.keySet(of: client, kid: "a", now: now + 31 + BackendKeySetResolver.lifetimeSeconds, allowingLoopback: true)
        #expect(server.requests == 3)
    }

    /// Key rotation over the real server (scripted clock): the client publishes a new key at its
    /// `jwks_uri`; an assertion signed with it is refused until the refetch window has passed
    /// since the last fetch, then accepted, and the retired key is refused from then on.
    @Test(arguments: TestBackend.available)
    func aRotatedKeyIsUsedAfterTheRefetchWindow(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend) { $0.allowsLoopbackKeySetURLs = true }
        let server = try await RunningServer.start(world.service)
        let old = try BackendTestKey.rs384("2026-old")
        let new = try BackendTestKey.es384("2026-new")
        func keySet(_ keys: [BackendTestKey]) -> [UInt8] {
            JSONWriter.serialize(.object(JSONObject(members: [JSONMember("keys", .array(keys.map(\.jwk)))])))
        }
        let keySetServer = try await KeySetServer.start(body: keySet([old]))
        try await withTeardown({ await keySetServer.stop(); await server.stop(); await world.close() }) {
            let audience = TestWorld.base + "/oauth/token"
            let wallet = try await world.register(.wallet("w1", firstName: "A"))
            let client = try await BackendServicesTests.register(server, ["jwks_uri": .string(keySetServer.url)])
            var party = TestParty.app("rotating")
            party.csi = client
            #expect(try await world.grant(from: wallet, to: [party], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            func token(_ key: BackendTestKey) async throws -> BackendServicesTests.TokenAnswer {
                try await BackendServicesTests.token(server, try key.assertion(client: client, audience: audience, now: world.now), scope: "system/*.rs")
            }
            #expect(try await token(old).status == 200)
            #expect(keySetServer.requests == 1)
            // The new key published (the old one retired): within the window the kept set lacks it.
            keySetServer.publish(keySet([new]))
            world.clock.advance(seconds: 5)
            let early = try await token(new)
            #expect(early.status == 401 && early.error == "invalid_client", "\(early)")
            #expect(keySetServer.requests == 1)
            // After the window: fetched again, the new key accepted, the old one refused.
            world.clock.advance(seconds: BackendKeySetResolver.refetchSeconds)
            let rotated = try await token(new)
            #expect(rotated.status == 200, "\(rotated)")
            #expect(keySetServer.requests == 2)
            let retired = try await token(old)
            #expect(retired.status == 401 && retired.error == "invalid_client", "\(retired)")
        }
    }

    static func client(url: String) throws -> BackendClient {
        BackendClient(clientID: try #require(CsiGuid("7c5b8363-504b-4f83-9d01-caa4e28a156e")), clientName: nil, jwks: nil, jwksURI: url,
                      registeredAt: Timestamp(secondsSince1970: 1_800_000_000))
    }
}

/// A loopback server at `/jwks.json` that counts its requests and answers `body` (or 500 when
/// nil); ``publish(_:)`` replaces the body (a key rotation).
struct KeySetServer: Sendable {
    let port: Int
    let application: LoopbackApplication
    let counter: Counter
    var url: String { "http://127.0.0.1:\(port)/jwks.json" }
    var requests: Int { counter.value.withLock { $0 } }

    final class Counter: Sendable {
        let value = Mutex(0)
        let body: Mutex<[UInt8]?>

        init(body: [UInt8]?) {
            self.body = Mutex(body)
        }
    }

    /// Answers `body` from now on.
    func publish(_ body: [UInt8]?) {
        counter.body.withLock { $0 = body }
    }

    static func start(body: [UInt8]?) async throws -> KeySetServer {
        let counter = Counter(body: body)
        let router = Router()
        router.get("jwks.json") { _, _ in
            let body = counter.value.withLock { count in
                count += 1
                return counter.body.withLock { $0 }
            }
            guard let body else { return Response(status: .internalServerError) }
            return Response(status: .ok, headers: [.contentType: "application/jwk-set+json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        guard let application = await LoopbackApplication.start(router, label: "jwks-count-test") else {
            throw TestSkip("the key set server did not start")
        }
        return KeySetServer(port: application.port, application: application, counter: counter)
    }

    func stop() async {
        await application.stop()
    }
}
