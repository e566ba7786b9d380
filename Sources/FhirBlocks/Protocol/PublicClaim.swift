import ExactJSON

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

    /// The most claims a list may hold (a wallet sends five).
    public static let maximumCount = 64
    /// The most bytes (UTF-8 keys and values together) a list may hold: claims are kept for as
    /// long as the registration, so their size is bounded like everything an anonymous caller
    /// can store.
    public static let maximumTotalBytes = 16 * 1024

    static func list(from values: [JSONValue], context: String) throws(SMOACError) -> [PublicClaim] {
        guard values.count <= maximumCount else {
            throw .malformedRequest("\(context): more than \(maximumCount) claims")
        }
        var claims: [PublicClaim] = []
        var total = 0
        for (index, element) in values.enumerated() {
            let claim = try PublicClaim(json: element, context: "\(context)[\(index)]")
            total += claim.key.utf8.count + claim.value.utf8.count
            guard total <= maximumTotalBytes else {
                throw .malformedRequest("\(context): the claims are larger than \(maximumTotalBytes) bytes")
            }
            claims.append(claim)
        }
        return claims
    }
}
