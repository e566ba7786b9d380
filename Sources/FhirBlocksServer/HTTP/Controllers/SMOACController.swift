import FhirBlocks
import HTTPTypes
import Hummingbird

/// The SMOAC endpoints (`util/*`, `csi/*`, `permission/*`, GET or POST), at the root and again
/// under `/smoac`: each calls ``TrustService/handleSMOAC(_:)``.
struct SMOACController {
    let service: TrustService

    /// Adds the endpoints to `group`; `stripPrefix` is the group's own prefix (`/smoac`), left out
    /// of the path the service sees.
    func addRoutes(to group: RouterGroup<FhirBlocksRequestContext>, stripPrefix: String? = nil) {
        let service = self.service
        let paths = SMOACEndpoint.allCases.map(\.path) + [SMOACEndpoint.givenByMeAliasPath, "util/getGUID"]
        for path in paths {
            for method in [HTTPRequest.Method.get, .post] {
                group.on(RouterPath(path), method: method) { request, context in
                    try await FhirBlocksRouter.handle(request, context: context, limit: service.configuration.maximumBodySize,
                                                      stripPrefix: stripPrefix) { serviceRequest in
                        await service.handleSMOAC(serviceRequest) ?? ServiceResponse.error(.unknownTarget("unknown endpoint"))
                    }
                }
            }
        }
    }
}
