import Hummingbird

/// `/health` (liveness, never rate limited) and `/metrics` (the Prometheus exposition), given
/// only the metrics.
struct StatusController {
    let metrics: ServerMetrics

    func addRoutes(to router: Router<FhirBlocksRequestContext>) {
        let metrics = self.metrics
        router.get("health") { _, _ in FhirBlocksRouter.bridge(ServiceResponse(body: Array("{\"status\":\"ok\"}".utf8))) }
        router.get("metrics") { _, _ in
            FhirBlocksRouter.bridge(ServiceResponse(contentType: "text/plain; version=0.0.4", body: metrics.exposition()))
        }
    }
}
