import CoreMetrics
import Prometheus
import Synchronization

/// The server's metrics (swift-metrics over a Prometheus registry, emitted as text at
/// `/metrics`): requests by route and status with their durations, tokens issued, audit
/// entries appended and the grouped transactions they were committed in (with the time each
/// group spent in the writer and the time each request waited for its entries), ledger
/// reloads, connections refused by the connection limits.
public struct ServerMetrics: Sendable {
    /// The registry `/metrics` emits.
    public let registry: PrometheusCollectorRegistry
    /// The factory the metrics are made with (pass it to `MetricsSystem.bootstrap` to collect
    /// other libraries' metrics too).
    public let factory: PrometheusMetricsFactory
    let tokensIssued: CoreMetrics.Counter
    let auditEntries: CoreMetrics.Counter
    let connectionsRefused: CoreMetrics.Counter
    let ledgerReloads: CoreMetrics.Counter
    let auditGroupCommits: CoreMetrics.Counter
    /// `fhirblocks_audit_group_write_seconds`: a group's transaction and cache update.
    let auditGroupWriteTime: CoreMetrics.Timer
    /// `fhirblocks_audit_wait_seconds`: from a request handing in its entries to their being durable.
    let auditWaitTime: CoreMetrics.Timer
    /// The per-route request counters and timers made so far (see ``RequestMetricHandles``).
    let requestHandles = RequestMetricHandles()

    /// Creates metrics over a new registry.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        factory = PrometheusMetricsFactory(registry: registry)
        tokensIssued = CoreMetrics.Counter(label: "fhirblocks_tokens_issued_total", dimensions: [], factory: factory)
        auditEntries = CoreMetrics.Counter(label: "fhirblocks_audit_entries_total", dimensions: [], factory: factory)
        connectionsRefused = CoreMetrics.Counter(label: "fhirblocks_connections_refused_total", dimensions: [], factory: factory)
        ledgerReloads = CoreMetrics.Counter(label: "fhirblocks_ledger_reloads_total", dimensions: [], factory: factory)
        auditGroupCommits = CoreMetrics.Counter(label: "fhirblocks_audit_group_commits_total", dimensions: [], factory: factory)
        auditGroupWriteTime = CoreMetrics.Timer(label: "fhirblocks_audit_group_write_seconds", dimensions: [], factory: factory)
        auditWaitTime = CoreMetrics.Timer(label: "fhirblocks_audit_wait_seconds", dimensions: [], factory: factory)
    }

    /// Records one request.
    public func recordRequest(route: String, method: String, status: Int, nanoseconds: Int64) {
        let handles = requestHandles.handles(route: route, method: method, status: status) {
            (CoreMetrics.Counter(label: "fhirblocks_http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))],
                                 factory: factory),
             CoreMetrics.Timer(label: "fhirblocks_http_request_duration_seconds", dimensions: [("route", route)], factory: factory))
        }
        handles.counter.increment()
        handles.timer.recordNanoseconds(nanoseconds)
    }

    /// Counts a request refused by a rate limit (`kind`: address or identity).
    func rateLimited(kind: String) {
        CoreMetrics.Counter(label: "fhirblocks_rate_limited_total", dimensions: [("kind", kind)], factory: factory).increment()
    }

    /// Counts a refusal of a caller that could not be verified.
    func unverifiedRefusals(reason: String) {
        CoreMetrics.Counter(label: "fhirblocks_unverified_refusals_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// The request counter and duration timer of each (route, method, status) seen, kept so a
/// request does not look its metrics up in the registry by name and labels (which validates
/// the name and builds the label key each time). Bounded: past ``maximumCount`` entries it
/// starts over (the registry keeps the metrics themselves, so nothing is lost).
final class RequestMetricHandles: Sendable {
    struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    static let maximumCount = 1024
    private let handles = Mutex<[Key: (counter: CoreMetrics.Counter, timer: CoreMetrics.Timer)]>([:])

    /// The handles of `route`, `method` and `status`, made by `make` the first time.
    func handles(route: String, method: String, status: Int,
                 make: () -> (CoreMetrics.Counter, CoreMetrics.Timer)) -> (counter: CoreMetrics.Counter, timer: CoreMetrics.Timer) {
        let key = Key(route: route, method: method, status: status)
        if let found = handles.withLock({ $0[key] }) { return found }
        let made = make()
        handles.withLock { handles in
            if handles.count >= Self.maximumCount { handles.removeAll(keepingCapacity: true) }
            handles[key] = made
        }
        return made
    }
}
