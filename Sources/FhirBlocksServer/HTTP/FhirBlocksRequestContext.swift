import Hummingbird
import NIOCore

/// The request context of the FhirBlocks routes: Hummingbird's core context, the peer's
/// address (for per-address rate limits), and who the bearer token authenticates, as the
/// ``BearerAuthenticationMiddleware`` of the route's group confirmed it. A handler reads the
/// caller from here; it never looks at the `Authorization` header itself.
struct FhirBlocksRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connected peer, nil when there is none (a test channel).
    let remoteAddress: SocketAddress?
    /// The connection's event loop: a download waits for it between pieces (see
    /// ``BulkExportController``), so the writer learns the connection is full before the next piece.
    let eventLoop: any EventLoop
    /// The bearer token as confirmed against the store's ledger version (``BearerAuthentication/none``
    /// on a route whose group has no ``BearerAuthenticationMiddleware``).
    var authentication: BearerAuthentication = .none
    /// The bearer token resolved against the ledger installed, not yet confirmed against the
    /// store's (``BearerAuthenticationMiddleware/Policy/unconfirmed``: the FHIR read by id,
    /// which confirms it in the same store read as the resource). Nil on every other route.
    var unconfirmedBearer: BearerResolution?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        eventLoop = source.channel.eventLoop
    }

    /// The active token's access, nil unless ``authentication`` is ``BearerAuthentication/active(_:)``.
    var access: TrustService.BearerAccess? {
        if case .active(let access) = authentication { return access }
        return nil
    }
}

/// Who the `Authorization` header of a request authenticates, confirmed against the store's
/// ledger version (so a token revoked by any server on the database is refused at once).
enum BearerAuthentication: Sendable {
    /// No `Authorization` header.
    case none
    /// A header whose token is not active: malformed, unknown, expired, revoked, or no longer
    /// backed by a permission.
    case inactive
    /// An active token and what it grants now.
    case active(TrustService.BearerAccess)
}
