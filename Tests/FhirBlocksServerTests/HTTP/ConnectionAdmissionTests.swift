import AsyncHTTPClient
import FhirBlocksServer
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// Slow clients: connections that send part of a header and then nothing are closed by the
/// idle timeout, one address cannot hold more than its share of connections, and a flood from
/// one address leaves `/health` answering for everyone else.
@Suite struct ConnectionAdmissionTests {
    /// A raw TCP connection from `source` that sends `bytes` and then nothing; its future
    /// gives every byte the server sent once the server closes it.
    static func openRawConnection(to port: Int, from source: String, sending bytes: String) async throws -> EventLoopFuture<[UInt8]> {
        let group = MultiThreadedEventLoopGroup.singleton
        let received = group.any().makePromise(of: [UInt8].self)
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ReceivedBytes(promise: received)) }
            }
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .connect(host: "127.0.0.1", port: port).get()
        // A refused connection may already be closed: its write fails, and its answer is empty.
        try? await channel.writeAndFlush(ByteBuffer(string: bytes)).get()
        return received.futureResult
    }

    @Test(.timeLimit(.minutes(1)))
    func slowClientFloodLeavesHealthAnswering() async throws {
        let world = try await TestWorld.make(.sqlite)
        let limits = ConnectionLimits(idleTimeoutSeconds: 0.5, maximumConnections: 64, maximumConnectionsPerAddress: 8)
        let server = try await RunningServer.start(world.service, connectionLimits: limits)
        try await withTeardown({ await server.stop(); await world.close() }) {
            // 20 partial headers from 127.0.0.2: 8 are held (until the idle timeout), 12 refused.
            var flood: [EventLoopFuture<[UInt8]>] = []
            for _ in 0..<20 {
                flood.append(try await Self.openRawConnection(to: server.port, from: "127.0.0.2", sending: "GET /health HTTP/1.1\r\nHost: x\r\n"))
            }
            // Another address is still served while the flood is held.
            let health = try await HTTPExchange.send(.GET, "\(server.baseURL)/health")
            #expect(health.status == 200)
            let metrics = String(decoding: try await HTTPExchange.send(.GET, "\(server.baseURL)/metrics").body, as: UTF8.self)
            #expect(metrics.contains("fhirblocks_connections_refused_total 12"), "\(metrics)")
            // Every flood connection is closed by the server: the refused ones at once, the held
            // ones by the idle timeout (the test's time limit catches a connection held forever).
            for connection in flood {
                #expect(try await connection.get().isEmpty, "a partial request got an answer")
            }
            // Their places are given back: the flooding address is served again.
            let again = try await Self.openRawConnection(to: server.port, from: "127.0.0.2",
                                                         sending: "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = String(decoding: try await again.get(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            let metricsAfter = String(decoding: try await HTTPExchange.send(.GET, "\(server.baseURL)/metrics").body, as: UTF8.self)
            #expect(metricsAfter.contains("fhirblocks_connections_refused_total 12"), "\(metricsAfter)")
        }
    }
}

/// Collects what a raw connection receives and hands it over when the connection closes.
private final class ReceivedBytes: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private var bytes: [UInt8] = []
    private let promise: EventLoopPromise<[UInt8]>

    init(promise: EventLoopPromise<[UInt8]>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytes += Array(unwrapInboundIn(data).readableBytesView)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.succeed(bytes)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
