import AsyncHTTPClient
@testable import FhirBlocksServer
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// Slow clients: connections that send part of a header and then nothing are closed by the
/// idle timeout, one address cannot hold more than its share of connections, and a flood from
/// one address leaves `/health` answering for everyone else.
@Suite struct ConnectionAdmissionTests {
    /// A raw TCP connection from `source` that sends `bytes` and then nothing; its future
    /// gives every byte the server sent once the connection closes.
    static func openRawConnection(to port: Int, from source: String, sending bytes: String) async throws -> EventLoopFuture<[UInt8]> {
        try await openRawChannel(to: port, from: source, sending: bytes).received
    }

    static func openRawChannel(to port: Int, from source: String, sending bytes: String) async throws
        -> (channel: any Channel, received: EventLoopFuture<[UInt8]>) {
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
        return (channel, received.futureResult)
    }

    static let partialHeader = "GET /health HTTP/1.1\r\nHost: x\r\n"
    static let wholeRequest = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

    /// One address holds at most its share; the rest of its connections are closed at once
    /// and counted, and other addresses are still served.
    @Test(.timeLimit(.minutes(10)))
    func floodFromOneAddressLeavesHealthAnswering() async throws {
        let world = try await TestWorld.make(.sqlite)
        // An idle timeout far longer than the test: the held connections stay held.
        let limits = ConnectionLimits(idleTimeoutSeconds: 600, maximumConnections: 64, maximumConnectionsPerAddress: 8)
        let server = try await RunningServer.start(world.service, connectionLimits: limits)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let closed = Inbox<[UInt8]>()
            var flood: [any Channel] = []
            for _ in 0..<20 {
                let (channel, received) = try await Self.openRawChannel(to: server.port, from: "127.0.0.2", sending: Self.partialHeader)
                received.whenSuccess { closed.append($0) }
                flood.append(channel)
            }
            // Twelve are closed without an answer (the time limit catches them held instead).
            // Twelve refusals mean the eight places were full, so every one of the 20 was seen.
            let refused = await closed.wait(for: 12)
            #expect(refused.count == 12 && refused.allSatisfy(\.isEmpty))
            let health = try await HTTPExchange.send(.GET, "\(server.baseURL)/health")
            #expect(health.status == 200)
            let metrics = String(decoding: try await HTTPExchange.send(.GET, "\(server.baseURL)/metrics").body, as: UTF8.self)
            #expect(metrics.contains("fhirblocks_connections_refused_total 12"), "\(metrics)")
            // The held eight are still open: a ninth from that address is refused too.
            let ninth = try await Self.openRawConnection(to: server.port, from: "127.0.0.2", sending: Self.wholeRequest)
            #expect(try await ninth.get().isEmpty)
            #expect(closed.values.count == 12)
            // Close the held ones (the server would otherwise wait for them when it stops).
            for channel in flood { try? await channel.close() }
        }
    }

    /// A connection that never finishes its header is closed by the idle timeout, and its
    /// place is given back.
    @Test(.timeLimit(.minutes(10)))
    func unfinishedHeadersAreClosedByTheIdleTimeout() async throws {
        let world = try await TestWorld.make(.sqlite)
        let limits = ConnectionLimits(idleTimeoutSeconds: 0.2, maximumConnections: 64, maximumConnectionsPerAddress: 2)
        let server = try await RunningServer.start(world.service, connectionLimits: limits)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let slow = [try await Self.openRawConnection(to: server.port, from: "127.0.0.3", sending: Self.partialHeader),
                        try await Self.openRawConnection(to: server.port, from: "127.0.0.3", sending: "GET /he")]
            for connection in slow {
                #expect(try await connection.get().isEmpty, "an unfinished request got an answer")
            }
            // The server gives a place back when its side of the connection has closed, which
            // may follow the client's view of the close by a moment: a bounded number of tries.
            var answer = ""
            for _ in 0..<200 where !answer.hasPrefix("HTTP/1.1 200") {
                let again = try await Self.openRawConnection(to: server.port, from: "127.0.0.3", sending: Self.wholeRequest)
                answer = String(decoding: try await again.get(), as: UTF8.self)
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
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

/// The admission's counting on its own.
@Suite struct ConnectionAdmissionCountingTests {
    @Test func capsInAllAndPerAddressAndGivesPlacesBack() {
        let refusals = Inbox<Int>()
        let admission = ConnectionAdmission(limits: ConnectionLimits(maximumConnections: 3, maximumConnectionsPerAddress: 2)) { refusals.append(1) }
        #expect(admission.admit("a") && admission.admit("a"))
        #expect(!admission.admit("a"))            // per address
        #expect(admission.admit("b"))
        #expect(!admission.admit("c"))            // in all
        admission.release("a")
        #expect(admission.admit("c"))
        #expect(!admission.admit("a"))            // in all again
        admission.release("b")
        #expect(admission.admit("a"))
        #expect(admission.snapshot.open == 3 && admission.snapshot.refused == 3 && refusals.values.count == 3)
        for address in ["a", "a", "c"] { admission.release(address) }
        #expect(admission.snapshot.open == 0)
    }
}

/// Who the per-address limits count.
@Suite struct ClientAddressTests {
    @Test func ipv6ClientsAreCountedByTheirSlash64() throws {
        let a = try SocketAddress(ipAddress: "2001:db8:1:2:aaaa::1", port: 1)
        let b = try SocketAddress(ipAddress: "2001:db8:1:2:ffff:eeee:dddd:cccc", port: 2)
        let other = try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1)
        #expect(ClientAddress.key(of: a) == ClientAddress.key(of: b))
        #expect(ClientAddress.key(of: a) != ClientAddress.key(of: other))
        #expect(ClientAddress.key(of: try SocketAddress(ipAddress: "::ffff:10.1.2.3", port: 1)) == "10.1.2.3")
        #expect(ClientAddress.key(of: try SocketAddress(ipAddress: "10.1.2.3", port: 9)) == "10.1.2.3")
        #expect(ClientAddress.key(of: nil) == "local")
    }
}
