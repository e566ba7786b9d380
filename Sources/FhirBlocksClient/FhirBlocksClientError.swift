/// Why a call to a FhirBlocks server failed.
///
/// Descriptions name the endpoint, the status and the server's `error`/`error_description`
/// (which the server writes without patient data); they never repeat request or response
/// bodies, claims, tokens or keys.
public enum FhirBlocksClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The base URL is not an absolute `http` or `https` URL with a host.
    case invalidBaseURL(String)
    /// The request could not be sent or no answer came back (connection refused, DNS, TLS,
    /// connection reset, timeout). `endpoint` is the path below the base URL.
    case transport(endpoint: String, reason: String)
    /// The answer was larger than the configured cap.
    case responseTooLarge(endpoint: String, limit: Int)
    /// The server answered with a status outside 2xx. `error` and `errorDescription` are the
    /// server's `error`/`error_description` (for FHIR: the first `OperationOutcome` issue's
    /// code and text), when the body carried them.
    case http(endpoint: String, status: Int, error: String?, errorDescription: String?)
    /// A 2xx answer whose body is not what the API promises (`reason` names members, not values).
    case malformedResponse(endpoint: String, reason: String)
    /// The request could not be built or signed (a bad argument, a signing failure).
    case invalidRequest(String)

    /// The HTTP status, for ``http(endpoint:status:error:errorDescription:)``.
    public var httpStatus: Int? {
        if case .http(_, let status, _, _) = self { return status }
        return nil
    }

    /// Whether the server answered and refused (an HTTP status of 400–499): the request reached
    /// it and was judged, as opposed to a transport failure, a server fault or a bad answer.
    public var isRefusal: Bool {
        guard let status = httpStatus else { return false }
        return (400..<500).contains(status)
    }

    public var description: String {
        switch self {
        case .invalidBaseURL(let reason): "invalid server URL: \(reason)"
        case .transport(let endpoint, let reason): "\(endpoint): could not reach the server: \(reason)"
        case .responseTooLarge(let endpoint, let limit): "\(endpoint): the answer is larger than \(limit) bytes"
        case .http(let endpoint, let status, let error, let errorDescription):
            "\(endpoint): HTTP \(status)" + (error.map { " \($0)" } ?? "") + (errorDescription.map { $0.isEmpty ? "" : ": \($0)" } ?? "")
        case .malformedResponse(let endpoint, let reason): "\(endpoint): unexpected answer: \(reason)"
        case .invalidRequest(let reason): "cannot build the request: \(reason)"
        }
    }
}
