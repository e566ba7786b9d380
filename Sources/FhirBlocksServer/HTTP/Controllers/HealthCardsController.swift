import Hummingbird
import SmartHealthCards

/// The SMART Health Cards issuer's public key set at `/.well-known/jwks.json` (the issuing
/// operation itself, `$health-cards-issue`, is a FHIR operation under ``FHIRController``),
/// given only the issuer key.
struct HealthCardsController {
    /// The issuer key (nil: the server issues no cards).
    let issuerKey: SHCIssuerKey?

    func addRoutes(to router: Router<FhirBlocksRequestContext>) {
        let issuerKey = self.issuerKey
        router.get(".well-known/jwks.json") { _, _ in FhirBlocksRouter.bridge(Self.jwks(issuerKey)) }
    }

    /// `/.well-known/jwks.json`: the issuer key's public JWK (`kid` its RFC 7638 thumbprint,
    /// `use` sig, `alg` ES256), open to every origin as the card spec requires. 404 when the
    /// server has no issuer key.
    static func jwks(_ key: SHCIssuerKey?) -> ServiceResponse {
        guard let key else { return .error(.unknownTarget("this server has no health card issuer key")) }
        return ServiceResponse(headers: [("Access-Control-Allow-Origin", "*"), ("Cache-Control", "max-age=3600")], body: key.publicJWKS)
    }
}
