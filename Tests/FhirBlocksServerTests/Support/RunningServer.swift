import AsyncHTTPClient
import FhirBlocksServer
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A FhirBlocks server running in this process on 127.0.0.1 and a free port, for tests over
/// real HTTP.
struct RunningServer: Sendable {
    let port: Int
    let task: Task<Void, any Error>
    var baseURL: String { "http://127.0.0.1:\(port)" }

    static func start(_ service: TrustService) async throws -> RunningServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "fhirblocks-test")
        logger.logLevel = .warning
        let application = FhirBlocksApplication(service: service, host: "127.0.0.1", port: 0, checkpointPeriodSeconds: 1, logger: logger) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task { try await application.run() }
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

/// One HTTP exchange over AsyncHTTPClient.
struct HTTPExchange {
    static func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws
        -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), response.headers.map { ($0.name, $0.value) }, Array(buffer.readableBytesView))
    }
}
