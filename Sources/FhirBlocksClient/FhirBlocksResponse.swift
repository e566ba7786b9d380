/// One HTTP answer of a FhirBlocks server: status, header fields and the whole body (within
/// the client's size cap).
public struct FhirBlocksResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header field (names compare case-insensitively).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// The body as text (invalid UTF-8 replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
