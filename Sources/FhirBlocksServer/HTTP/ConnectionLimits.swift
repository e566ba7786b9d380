/// How many connections the server holds, and for how long, so that clients that open
/// connections and send nothing (or a header a byte at a time) cannot exhaust its descriptors
/// and memory.
///
/// - An idle connection, or one whose request header has not arrived, is closed after
///   ``idleTimeoutSeconds`` (Hummingbird's HTTP/1 idle timer: a partial header is not a request
///   part, so it never counts as activity).
/// - A new connection beyond ``maximumConnections`` in all, or beyond
///   ``maximumConnectionsPerAddress`` from one IP address, is closed at once, so one address's
///   flood leaves room for everyone else.
public struct ConnectionLimits: Sendable, Equatable {
    /// Seconds a connection may stay without a complete request part (header or body chunk)
    /// or between requests.
    public var idleTimeoutSeconds: Double
    /// Open connections in all.
    public var maximumConnections: Int
    /// Open connections from one IP address.
    public var maximumConnectionsPerAddress: Int

    /// Creates limits; each count is at least 1, and the timeout from a millisecond to a day.
    public init(idleTimeoutSeconds: Double = 30, maximumConnections: Int = 4096, maximumConnectionsPerAddress: Int = 128) {
        self.idleTimeoutSeconds = min(max(0.001, idleTimeoutSeconds), 86_400)
        self.maximumConnections = max(1, maximumConnections)
        self.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
    }

    /// 30 s idle, 4,096 connections, 128 per address.
    public static let `default` = ConnectionLimits()
}
