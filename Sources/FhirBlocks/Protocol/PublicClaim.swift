import FHIRCore

/// One `{"key": …, "value": …}` entry of a csi's public claims (registration and
/// `fetchPublicClaims`). Wallets send the patient's demographics; apps send empty values.
public struct PublicClaim: Sendable, Hashable {
    /// The claim name, for example `FirstName`.
    public var key: String
    /// The claim value (may be empty).
    public var value: String

    /// Creates a claim.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// The five claims the legacy clients send, in their order, with empty values.
    public static let legacyEmptyClaims: [PublicClaim] = ["DateofBirth", "FirstName", "MiddleName", "LastName", "Gender"]
        .map { PublicClaim(key: $0, value: "") }

    init(json: JSONValue, context: String) throws(SMOACError) {
        let fields = try JSONFields(json, context: context)
        key = try fields.string("key")
        value = try fields.string("value")
    }

    var json: JSONValue {
        var object = JSONObject()
        object.append("key", key)
        object.append("value", value)
        return .object(object)
    }

    static func list(from values: [JSONValue], context: String) throws(SMOACError) -> [PublicClaim] {
        var claims: [PublicClaim] = []
        for (index, element) in values.enumerated() {
            claims.append(try PublicClaim(json: element, context: "\(context)[\(index)]"))
        }
        return claims
    }
}
