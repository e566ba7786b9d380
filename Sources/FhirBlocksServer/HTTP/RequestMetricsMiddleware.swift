import Hummingbird
import NIOCore

/// Counts and times every request into ``ServerMetrics``, labelled by the matched route
/// pattern (never the concrete path, which may carry identifiers).
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = FhirBlocksRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        do {
            let response = try await next(request, context)
            record(context: context, method: method, status: Int(response.status.code), since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(context: context, method: method, status: Int(status), since: start)
            throw error
        }
    }

    private func record(context: Context, method: String, status: Int, since start: ContinuousClock.Instant) {
        let nanoseconds = TimeAmount(ContinuousClock.now - start).nanoseconds
        metrics.recordRequest(route: context.endpointPath ?? "unmatched", method: method, status: status, nanoseconds: nanoseconds)
    }
}
