import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 and a free port, over TLS when given an authority, for
/// tests: it answers each path from a table of routes and counts the requests per path.
public final class LoopbackServer: Sendable {
    /// One answer.
    public struct Reply: Sendable {
        public var status: HTTPResponseStatus
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// Sent with `Transfer-Encoding: chunked` instead of `Content-Length`.
        public var chunked: Bool
        /// Sends the head and the first half of the body, then nothing more.
        public var stallsInBody: Bool

        public init(status: HTTPResponseStatus = .ok, headers: [(String, String)] = [], body: [UInt8] = [],
             chunked: Bool = false, stallsInBody: Bool = false) {
            self.status = status
            self.headers = headers
            self.body = body
            self.chunked = chunked
            self.stallsInBody = stallsInBody
        }

        public init(status: HTTPResponseStatus = .ok, headers: [(String, String)] = [], body: String) {
            self.init(status: status, headers: headers, body: Array(body.utf8))
        }
    }

    /// How a path is answered: a reply from the request head, or nil to never answer.
    public typealias Route = @Sendable (HTTPRequestHead) -> Reply?

    /// The routes and what reached them, shared with the connections' handlers.
    private final class Table: Sendable {
        struct State {
            var routes: [String: Route] = [:]
            var counts: [String: Int] = [:]
            var requests: [String: [HTTPRequestHead]] = [:]
        }

        let state = Mutex(State())

        /// Records a request and finds its reply; a path without a route is a 404.
        func reply(to head: HTTPRequestHead) -> Reply? {
            let path = String(head.uri.prefix { $0 != "?" })
            let route = state.withLock { state -> Route? in
                state.counts[path, default: 0] += 1
                state.requests[path, default: []].append(head)
                return state.routes[path]
            }
            guard let route else { return Reply(status: .notFound, body: "not found") }
            return route(head)
        }
    }

    private let table = Table()
    private let stopped = Mutex(false)
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The port the server listens on.
    public let port: Int

    /// Whether the server speaks TLS.
    public let isTLS: Bool

    /// Starts a server: over TLS with `authority`'s server certificate, or plain HTTP when nil.
    public init(authority: TestCertificateAuthority?) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let context: NIOSSLContext? = try authority.map { authority in
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(authority.serverCertificate)],
                                                               privateKey: .privateKey(authority.serverKey))
            tls.minimumTLSVersion = .tlsv12
            return try NIOSSLContext(configuration: tls)
        }
        isTLS = authority != nil
        let table = self.table
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let context { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(RouteHandler(table: table))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
            self.group = group
            self.channel = channel
            self.port = port
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// `https://127.0.0.1:<port>` (or `http://`) followed by `path`.
    public func url(_ path: String) -> String {
        "\(isTLS ? "https" : "http")://127.0.0.1:\(port)\(path)"
    }

    /// Answers `path` with `route`.
    public func route(_ path: String, _ route: @escaping Route) {
        table.state.withLock { $0.routes[path] = route }
    }

    /// Answers `path` with `reply` every time.
    public func route(_ path: String, _ reply: Reply) {
        route(path) { _ in reply }
    }

    /// How many requests reached `path`.
    public func count(_ path: String) -> Int {
        table.state.withLock { $0.counts[path] ?? 0 }
    }

    /// The heads of the requests that reached `path`, in order.
    public func requests(_ path: String) -> [HTTPRequestHead] {
        table.state.withLock { $0.requests[path] ?? [] }
    }

    /// Every path that was requested.
    public var requestedPaths: Set<String> {
        table.state.withLock { Set($0.counts.keys) }
    }

    /// Stops listening and closes every connection; later calls do nothing.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    private final class RouteHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let table: Table
        private var head: HTTPRequestHead?

        init(table: Table) {
            self.table = table
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body:
                break
            case .end:
                guard let head, let reply = table.reply(to: head) else { return }
                self.head = nil
                var headers = HTTPHeaders(reply.headers)
                if !reply.chunked { headers.replaceOrAdd(name: "Content-Length", value: String(reply.body.count)) }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: reply.status, headers: headers))),
                              promise: nil)
                if reply.stallsInBody {
                    let half = ByteBuffer(bytes: reply.body.prefix(reply.body.count / 2))
                    context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(half))), promise: nil)
                    return
                }
                if !reply.body.isEmpty {
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: reply.body)))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
