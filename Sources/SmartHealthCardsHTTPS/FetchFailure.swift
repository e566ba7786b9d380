/// Why a document could not be fetched, and whether a stale cached copy may stand in for it.
struct FetchFailure: Error, Sendable, Equatable {
    /// A one-line reason for the verifier's report.
    var reason: String
    /// True for failures to reach the server or get an answer (connection, TLS, timeout, 5xx),
    /// when a stale copy may be used; false when the server answered something unacceptable
    /// (a redirect away from https, too many redirects, a body over the size cap, a 4xx).
    var allowsStaleCopy: Bool
}
