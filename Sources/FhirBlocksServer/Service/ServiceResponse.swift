import ExactJSON
import FhirBlocks

/// A response as the service produces it: status, extra headers and body bytes.
public struct ServiceResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// `Content-Type`.
    public var contentType: String
    /// Other headers.
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int = 200, contentType: String = "application/json", headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ value: JSONValue, status: Int = 200, contentType: String = "application/json",
                            headers: [(String, String)] = []) -> ServiceResponse {
        ServiceResponse(status: status, contentType: contentType, headers: headers, body: JSONWriter.serialize(value))
    }

    /// A wire message as JSON.
    public static func message(_ message: some WireMessage, status: Int = 200) -> ServiceResponse {
        ServiceResponse(status: status, body: message.jsonBytes)
    }

    /// The `{"error","error_description"}` body with the error's status (§1.10); 401s carry
    /// `WWW-Authenticate`.
    public static func error(_ error: SMOACError) -> ServiceResponse {
        var headers: [(String, String)] = [("Cache-Control", "no-store")]
        if error.httpStatus == 401 { headers.append(("WWW-Authenticate", "Bearer error=\"\(error.errorCode)\"")) }
        if case .rateLimited(let seconds) = error { headers.append(("Retry-After", String(seconds))) }
        return ServiceResponse(status: error.httpStatus, headers: headers, body: error.body.jsonBytes)
    }

    /// Plain text.
    public static func text(_ text: String, status: Int = 200) -> ServiceResponse {
        ServiceResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}
