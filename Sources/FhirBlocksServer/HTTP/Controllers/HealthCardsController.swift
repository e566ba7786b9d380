import Hummingbird

/// The SMART Health Cards issuer's public key set at `/.well-known/jwks.json` (the issuing
/// operation itself, `$health-cards-issue`, is a FHIR operation under ``FHIRController``).
struct HealthCardsController {
    let service: TrustService

    func addRoutes(to router: Router<FhirBlocksRequestContext>) {
        let service = self.service
        router.get(".well-known/jwks.json") { _, _ in FhirBlocksRouter.bridge(service.healthCardsJWKS()) }
    }
}
