import Testing
@testable import FhirBlocksServer

/// The request metrics, recorded through the handles kept per route, method and status.
@Suite struct ServerMetricsTests {
    /// The exposition's sample line of `metric` with `labels`, nil when absent.
    static func sample(_ metrics: ServerMetrics, _ metric: String, _ labels: String) -> String? {
        String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix("\(metric){\(labels)} ") }
            .map { String($0.dropFirst("\(metric){\(labels)} ".count)) }
    }

    @Test func requestsAreCountedByRouteMethodAndStatus() {
        let metrics = ServerMetrics()
        for _ in 0..<3 { metrics.recordRequest(route: "/fhir/**", method: "GET", status: 200, nanoseconds: 1_000) }
        metrics.recordRequest(route: "/fhir/**", method: "GET", status: 404, nanoseconds: 1_000)
        metrics.recordRequest(route: "/oauth/token", method: "POST", status: 200, nanoseconds: 1_000)
        #expect(Self.sample(metrics, "fhirblocks_http_requests_total", #"route="/fhir/**",method="GET",status="200""#) == "3")
        #expect(Self.sample(metrics, "fhirblocks_http_requests_total", #"route="/fhir/**",method="GET",status="404""#) == "1")
        #expect(Self.sample(metrics, "fhirblocks_http_requests_total", #"route="/oauth/token",method="POST",status="200""#) == "1")
        #expect(Self.sample(metrics, "fhirblocks_http_request_duration_seconds_count", #"route="/fhir/**""#) == "4")
    }

    @Test func countsSurviveTheHandlesBeingDropped() {
        let metrics = ServerMetrics()
        metrics.recordRequest(route: "/health", method: "GET", status: 200, nanoseconds: 1_000)
        // More combinations than the handles kept: they start over, the registry's counts do not.
        for status in 0..<(RequestMetricHandles.maximumCount + 10) {
            metrics.recordRequest(route: "/metrics", method: "GET", status: 1_000 + status, nanoseconds: 1_000)
        }
        metrics.recordRequest(route: "/health", method: "GET", status: 200, nanoseconds: 1_000)
        #expect(Self.sample(metrics, "fhirblocks_http_requests_total", #"route="/health",method="GET",status="200""#) == "2")
        #expect(Self.sample(metrics, "fhirblocks_http_requests_total", #"route="/metrics",method="GET",status="1000""#) == "1")
    }
}
