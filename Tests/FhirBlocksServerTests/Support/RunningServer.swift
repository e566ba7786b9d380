import FhirBlocksServer
import Foundation
import HTTPTypes
import HTTPTestSupport
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1

/// A FhirBlocks server running in this process on 127.0.0.1 and a free port, for tests over
/// real HTTP.
struct RunningServer: Sendable {
    let port: Int
    let task: Task<Void, any Error>
    var baseURL: String { "http://127.0.0.1:\(port)" }

    static func start(_ service: TrustService, connectionLimits: ConnectionLimits = .default) async throws -> RunningServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "fhirblocks-test")
        logger.logLevel = .warning
        let application = buildApplication(service: service, host: "127.0.0.1", port: 0, checkpointPeriodSeconds: 1,
                                           connectionLimits: connectionLimits, logger: logger) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw TestSkip("the server did not start")
        }
        return RunningServer(port: port, task: task)
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// The tests' one HTTP client and exchange (HTTPTestSupport's), under the name these tests use.
typealias HTTPExchange = HTTPTestSupport.HTTPExchange

/// The same exchanges straight into the application's router (HummingbirdTesting's `.router`
/// mode), for tests where a socket adds nothing: the routes, middleware and service run as
/// they do behind the server, without binding a port.
struct RouterExchange: Sendable {
    let client: any TestClientProtocol

    /// Runs `body` with an exchange into a new application of `service`.
    static func with<Value: Sendable>(_ service: TrustService, _ body: @Sendable (RouterExchange) async throws -> Value) async throws -> Value {
        var logger = Logger(label: "fhirblocks-test")
        logger.logLevel = .warning
        let application = buildApplication(service: service, checkpointPeriodSeconds: 1, logger: logger)
        return try await application.test(.router) { client in try await body(RouterExchange(client: client)) }
    }

    func send(_ method: NIOHTTP1.HTTPMethod, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws
        -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { throw TestSkip("bad header name \(name)") }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let response = try await client.executeRequest(uri: path, method: HTTPRequest.Method(rawValue: method.rawValue) ?? .get,
                                                       headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        return (Int(response.status.code), response.headers.map { ($0.name.rawName, $0.value) }, Array(response.body.readableBytesView))
    }
}
