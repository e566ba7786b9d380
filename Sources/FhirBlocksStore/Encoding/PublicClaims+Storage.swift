import ExactJSON
import FhirBlocks

/// Public claims as compact JSON for a database column: `[{"key":…,"value":…}…]`.
public enum PublicClaimsStorage {
    /// Encodes claims.
    public static func encode(_ claims: [PublicClaim]) -> String {
        let array = claims.map { claim -> JSONValue in
            .object(JSONObject(members: [JSONMember(key: "key", value: .string(claim.key)), JSONMember(key: "value", value: .string(claim.value))]))
        }
        return String(decoding: JSONWriter.serialize(.array(array)), as: UTF8.self)
    }

    /// Decodes claims.
    public static func decode(_ text: String) throws(TrustStoreError) -> [PublicClaim] {
        guard let value = try? JSONParser.parse(Array(text.utf8), maximumDepth: 4), let array = value.arrayValue else {
            throw .corrupt("public claims")
        }
        var claims: [PublicClaim] = []
        for element in array {
            guard let object = element.objectValue, let key = object["key"]?.stringValue, let value = object["value"]?.stringValue else {
                throw .corrupt("public claims")
            }
            claims.append(PublicClaim(key: key, value: value))
        }
        return claims
    }
}
