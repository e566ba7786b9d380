import Hummingbird
import NIOCore

/// The request context of the FhirBlocks routes: Hummingbird's core context plus the peer's
/// address (for per-address rate limits).
struct FhirBlocksRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connected peer, nil when there is none (a test channel).
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
