import CommonSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A one-shot HTTP listener on 127.0.0.1 with a port the system picks, for the OAuth redirect
/// of a native app (RFC 8252 §7.3): the first `GET /callback?…` is answered with a short page
/// and its query is handed over; anything else gets 404. It stops listening once it has the
/// callback.
public final class LoopbackRedirectListener: Sendable {
    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    public let redirectURI: String
    private let channel: any Channel
    private let inbox: CallbackInbox

    private init(channel: any Channel, port: Int, inbox: CallbackInbox) {
        self.channel = channel
        self.inbox = inbox
        redirectURI = "http://127.0.0.1:\(port)/callback"
    }

    /// Starts listening.
    public static func start() async throws(RecordsSyncError) -> LoopbackRedirectListener {
        let inbox = CallbackInbox()
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 8)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(CallbackHandler(inbox: inbox))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else { throw RecordsSyncError.callback("the listener has no port") }
            return LoopbackRedirectListener(channel: channel, port: port, inbox: inbox)
        } catch let error as RecordsSyncError {
            throw error
        } catch {
            throw .callback("cannot listen on 127.0.0.1: \(error)")
        }
    }

    /// Waits for the callback (at most `timeout`), then stops listening; the query's fields.
    public func callback(timeout: Duration) async throws(RecordsSyncError) -> [String: String] {
        let inbox = self.inbox
        let result: [String: String]? = await withTaskGroup(of: [String: String]?.self) { group in
            group.addTask { await inbox.next() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            inbox.cancel()
            return first
        }
        try? await channel.close()
        guard let result else { throw .callback("no redirect came back within \(timeout.components.seconds) s") }
        return result
    }

    /// Stops listening.
    public func close() async {
        inbox.cancel()
        try? await channel.close()
    }
}

/// Where the handler puts the first callback and the waiter takes it.
final class CallbackInbox: Sendable {
    private struct State {
        var value: [String: String]?
        var waiter: CheckedContinuation<[String: String]?, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Delivers a callback; false when one was already delivered.
    func deliver(_ value: [String: String]) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[String: String]?, Never>?) in
            guard state.value == nil, !state.cancelled else { return (false, nil) }
            state.value = value
            let waiter = state.waiter
            state.waiter = nil
            return (true, waiter)
        }
        waiter?.resume(returning: value)
        return accepted
    }

    /// The first callback (nil once cancelled).
    func next() async -> [String: String]? {
        await withCheckedContinuation { continuation in
            let ready: [String: String]?? = state.withLock { state in
                if let value = state.value { return .some(value) }
                if state.cancelled { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the wait.
    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<[String: String]?, Never>? in
            state.cancelled = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// Answers one HTTP request per connection.
final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: CallbackInbox
    private var head: HTTPRequestHead?

    init(inbox: CallbackInbox) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let (status, page) = answer(head)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Length", value: String(page.utf8.count))
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Cache-Control", value: "no-store")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: page)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func answer(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String) {
        let path = head.uri.prefix { $0 != "?" }
        guard head.method == .GET, path == "/callback" else { return (.notFound, "<!doctype html><title>Not found</title><p>Not found.</p>") }
        let query = head.uri.drop { $0 != "?" }.dropFirst()
        let fields = (try? FormURLEncoding.fields(Array(query.utf8))) ?? []
        var values: [String: String] = [:]
        for field in fields { values[field.name] = field.value }
        guard inbox.deliver(values) else {
            return (.gone, "<!doctype html><title>Already done</title><p>This sign-in has already been handled.</p>")
        }
        let done = values["error"] == nil ? "You are connected" : "The connection was not made"
        return (.ok, "<!doctype html><title>\(done)</title><p>\(done). You can close this window and go back to the terminal.</p>")
    }
}
