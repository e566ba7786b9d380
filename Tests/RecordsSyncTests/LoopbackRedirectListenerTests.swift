import AsyncHTTPClient
import Foundation
import HTTPTestSupport
import NIOCore
@testable import RecordsSync
import Testing

/// The one-shot redirect listener on 127.0.0.1.
struct LoopbackRedirectListenerTests {
    @Test func firstCallbackIsHandedOverAndTheListenerStops() async throws {
        let listener = try await LoopbackRedirectListener.start()
        #expect(listener.redirectURI.hasPrefix("http://127.0.0.1:") && listener.redirectURI.hasSuffix("/callback"))
        let base = String(listener.redirectURI.dropLast("/callback".count))
        async let fields = listener.callback(timeout: .seconds(60))
        let (otherStatus, _) = try await Self.get("\(base)/favicon.ico")
        #expect(otherStatus == 404)
        let (status, page) = try await Self.get("\(listener.redirectURI)?code=abc%2B1&state=xyz")
        #expect(status == 200 && page.contains("You are connected"))
        #expect(try await fields == ["code": "abc+1", "state": "xyz"])
        // Closed: nothing listens any more (AsyncHTTPClient retries a refused connection until
        // its deadline, hence the short one).
        await #expect(throws: (any Error).self) { _ = try await Self.get("\(listener.redirectURI)?code=again&state=xyz", timeout: .seconds(1)) }
    }

    @Test func noRedirectEndsTheWaitWithAClearError() async throws {
        let listener = try await LoopbackRedirectListener.start()
        await #expect(throws: RecordsSyncError.callback("no redirect came back within 0 s")) {
            _ = try await listener.callback(timeout: .milliseconds(10))
        }
    }

    static func get(_ url: String, timeout: TimeAmount = .seconds(20)) async throws -> (Int, String) {
        let response = try await HTTPExchange.client.execute(HTTPClientRequest(url: url), timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }
}
