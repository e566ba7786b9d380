import HTTPTypes
import Hummingbird

/// The protected FHIR endpoint: every method under `/fhir/**` goes to
/// ``TrustService/handleFHIR(_:)`` (which routes reads, searches, writes and operations), with
/// the bearer token resolved by ``BearerAuthenticationMiddleware``.
struct FHIRController {
    let service: TrustService

    func addRoutes(to group: RouterGroup<FhirBlocksRequestContext>) {
        let service = self.service
        group.add(middleware: BearerAuthenticationMiddleware(service: service))
        for method in [HTTPRequest.Method.get, .put, .post, .delete, .patch] {
            group.on("**", method: method) { request, context in
                try await FhirBlocksRouter.handle(request, context: context, limit: service.configuration.maximumBodySize) { await service.handleFHIR($0) }
            }
        }
    }
}
