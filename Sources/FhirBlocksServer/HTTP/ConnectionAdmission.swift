import NIOCore
import Synchronization

/// Counts open connections, in all and per remote IP address, and admits a new one only
/// within ``ConnectionLimits``. Shared by every connection of one server.
final class ConnectionAdmission: Sendable {
    private struct Counts {
        var total = 0
        var byAddress: [String: Int] = [:]
        var refused = 0
    }

    private let limits: ConnectionLimits
    private let counts = Mutex(Counts())
    private let onRefusal: @Sendable () -> Void

    init(limits: ConnectionLimits, onRefusal: @escaping @Sendable () -> Void = {}) {
        self.limits = limits
        self.onRefusal = onRefusal
    }

    /// Takes a place for a connection from `address`, or returns false when there is none.
    func admit(_ address: String) -> Bool {
        let admitted = counts.withLock { counts in
            let fromAddress = counts.byAddress[address, default: 0]
            guard counts.total < limits.maximumConnections, fromAddress < limits.maximumConnectionsPerAddress else {
                counts.refused += 1
                return false
            }
            counts.total += 1
            counts.byAddress[address] = fromAddress + 1
            return true
        }
        if !admitted { onRefusal() }
        return admitted
    }

    /// Gives back the place of a closed connection from `address`.
    func release(_ address: String) {
        counts.withLock { counts in
            counts.total -= 1
            let left = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = left > 0 ? left : nil
        }
    }

    /// Open connections in all, and connections refused so far.
    var snapshot: (open: Int, refused: Int) {
        counts.withLock { ($0.total, $0.refused) }
    }
}

/// The first handler after HTTP decoding on every connection: takes the connection's place in
/// the ``ConnectionAdmission`` (closing it at once when there is none) and gives it back when
/// the connection closes.
final class ConnectionAdmissionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let admission: ConnectionAdmission

    init(admission: ConnectionAdmission) {
        self.admission = admission
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let address = ClientAddress.key(of: context.channel.remoteAddress)
        if admission.admit(address) {
            let admission = self.admission
            context.channel.closeFuture.whenComplete { _ in admission.release(address) }
        } else {
            context.close(promise: nil)
        }
    }
}
