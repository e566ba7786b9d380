import Hummingbird
import Logging
import NIOCore

/// A Hummingbird application on 127.0.0.1 and a free port (or a given one), for tests that serve a
/// router of their own (a witness, a key set URL, a links server): it runs until ``stop()``.
public struct LoopbackApplication: Sendable {
    /// The port it listens on.
    public let port: Int
    private let task: Task<Void, any Error>

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Starts serving `router` and waits until it listens; its log (`label`) shows `logLevel` and worse.
    /// - Parameters:
    ///   - router: what answers the requests.
    ///   - label: the label of its logger.
    ///   - port: the port to listen on; 0 (the default): a free one the system picks.
    ///   - logLevel: the least severe messages its log shows (warnings by default).
    /// - Returns: the running application, or nil when it did not start (a given port taken).
    public static func start<Router: HTTPResponderBuilder>(_ router: Router, label: String, port: Int = 0,
                                                           logLevel: Logger.Level = .warning) async -> LoopbackApplication?
    where Router.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
                                      onServerRunning: { channel in
                                          continuation.yield(channel.localAddress?.port ?? 0)
                                          continuation.finish()
                                      }, logger: logger)
        let task = Task {
            // A server that fails to start ends the wait for its port.
            defer { continuation.finish() }
            try await application.runService()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            _ = await task.result
            return nil
        }
        return LoopbackApplication(port: port, task: task)
    }

    /// Stops the application and waits until it has stopped.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}
