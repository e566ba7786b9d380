import Hummingbird
import NIOCore

/// The request context of the FhirBlocks routes: Hummingbird's core context, the peer's
/// address (for per-address rate limits), and the bearer token the
/// ``BearerAuthenticationMiddleware`` resolved on the routes that take one.
struct FhirBlocksRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connected peer, nil when there is none (a test channel).
    let remoteAddress: SocketAddress?
    /// The resolved `Authorization: Bearer` header, nil when absent or not resolved.
    var bearer: BearerResolution?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
