import ExactJSON
import FhirBlocks
import NIOHTTP1

/// FHIR R4 under `BASE/fhir` with a bearer token: read, search, create and update in the
/// token's patient compartment. A resource the token may not see answers 404, like an absent one.
public struct FhirResourceClient: Sendable {
    /// The FHIR JSON media type.
    public static let mediaType = "application/fhir+json"

    /// The server connection.
    public let client: FhirBlocksClient
    /// The bearer token.
    public let accessToken: String

    /// Creates a client for one token.
    public init(client: FhirBlocksClient, accessToken: String) {
        self.client = client
        self.accessToken = accessToken
    }

    /// Creates a client for a token response.
    public init(client: FhirBlocksClient, token: TokenResponse) {
        self.init(client: client, accessToken: token.accessToken)
    }

    /// Whether `text` is a FHIR resource type name (an uppercase letter, then letters).
    public static func isResourceType(_ text: String) -> Bool {
        guard case .type = ResourceScope(text) else { return false }
        return true
    }

    /// Whether `text` is a FHIR id (`[A-Za-z0-9\-\.]{1,64}`).
    public static func isResourceID(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...64).contains(utf8.count) && utf8.allSatisfy {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    /// `GET /fhir/<path>`: `path` is below the FHIR base, for example `Patient/123`,
    /// `Observation?code=1234-5` or `AuditEvent` (a query in it is sent as written).
    public func get(_ path: String, query: [(String, String)] = []) async throws(FhirBlocksClientError) -> JSONValue {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isWhitespace || $0 == "#" }), !trimmed.hasPrefix("/"),
              !trimmed.split(separator: "/").contains("..") else {
            throw .invalidRequest("a FHIR path such as Patient/123 or Observation?code=… (no spaces, no '..')")
        }
        return try await client.getJSON("fhir/" + trimmed, query: query, accept: Self.mediaType, bearer: accessToken)
    }

    /// `GET /fhir/<type>/<id>`.
    public func read(type: String, id: String) async throws(FhirBlocksClientError) -> JSONValue {
        guard Self.isResourceType(type), Self.isResourceID(id) else { throw .invalidRequest("not a resource type and id") }
        return try await get("\(type)/\(id)")
    }

    /// `GET /fhir/<type>?…`: a `searchset` Bundle.
    public func search(type: String, parameters: [(String, String)] = []) async throws(FhirBlocksClientError) -> JSONValue {
        guard Self.isResourceType(type) else { throw .invalidRequest("not a resource type") }
        return try await get(type, query: parameters)
    }

    /// `GET /fhir/metadata` (the CapabilityStatement; needs no token but sends it).
    public func metadata() async throws(FhirBlocksClientError) -> JSONValue {
        try await get("metadata")
    }

    /// Stores `resource` in the token's compartment: `PUT /fhir/<type>/<id>` when it has an
    /// `id`, else `POST /fhir/<type>`. Returns the stored resource (with `meta.versionId`).
    public func store(_ resource: JSONValue) async throws(FhirBlocksClientError) -> JSONValue {
        guard let object = resource.objectValue, let type = object["resourceType"]?.stringValue, Self.isResourceType(type) else {
            throw .invalidRequest("the resource has no valid resourceType")
        }
        let path: String
        let method: HTTPMethod
        if let idValue = object["id"] {
            guard let id = idValue.stringValue, Self.isResourceID(id) else { throw .invalidRequest("the resource id is not a FHIR id") }
            path = "fhir/\(type)/\(id)"
            method = .PUT
        } else {
            path = "fhir/\(type)"
            method = .POST
        }
        let response = try await client.successfulExchange(method, path, body: JSONWriter.serialize(resource),
                                                           contentType: Self.mediaType, accept: Self.mediaType, bearer: accessToken)
        return try FhirBlocksClient.json(response.body, endpoint: FhirBlocksClient.endpointName(path))
    }
}
