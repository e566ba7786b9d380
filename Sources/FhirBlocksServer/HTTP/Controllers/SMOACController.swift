import FhirBlocks
import HTTPTypes
import Hummingbird

/// The SMOAC endpoints' routes (`util/*`, `csi/*`, `permission/*`, `vaca/*`, and the
/// `fetchPermissionsGivenByMe` and `util/getGUID` aliases), each registered once for GET and
/// once for POST, added at the root and again under `/smoac`. Each route's endpoint, its
/// compat quirks and whether it takes the method are settled when the routes are built: a
/// method the endpoint does not take answers 400 ``TrustService/smoacWrongMethod(_:)``;
/// the others call the endpoint's handler (``TrustService/smoacHandler(_:)``).
struct SMOACController {
    let service: TrustService

    /// The routes, to add at `/` and at `/smoac`.
    var routes: RouteCollection<FhirBlocksRequestContext> {
        let service = self.service
        let mode = service.configuration.mode
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        let paths = SMOACEndpoint.allCases.map(\.path) + [SMOACEndpoint.givenByMeAliasPath, "util/getGUID"]
        for path in paths {
            // `util/getGUID` is getGloballyUniqueIdentifier's short name; the README's
            // `fetchPermissionsGivenByMe` is served in both modes (a quirk in compat mode).
            let resolved = SMOACEndpoint.resolve(path: path == "util/getGUID" ? SMOACEndpoint.getGloballyUniqueIdentifier.path : path, mode: mode)
                ?? Accepted(.fetchPermissionsPreviouslyGrantedByMe)
            let endpoint = resolved.value
            let handler = TrustService.smoacHandler(endpoint)
            for method in [HTTPRequest.Method.get, .post] {
                let accepted = endpoint.accepts(method: method.rawValue, mode: mode)
                let quirks = resolved.quirks + accepted.quirks
                routes.on(RouterPath(path), method: method) { request, context in
                    try await FhirBlocksRouter.handle(request, context: context, limit: service.configuration.maximumBodySize) { request in
                        guard accepted.value else { return TrustService.smoacWrongMethod(endpoint) }
                        return await service.answerSMOAC(endpoint, body: request.body, quirks: quirks, handler: handler)
                    }
                }
            }
        }
        return routes
    }
}
