import ExactJSON

/// A JSON Web Key Set, `{"keys":[…]}`, as an issuer publishes at `<iss>/.well-known/jwks.json`.
public struct SHCJWKSet: Sendable, Hashable {
    /// The keys, in published order. Entries that are not JSON objects are skipped when reading.
    public var keys: [SHCJWK]

    /// Creates a set from keys.
    public init(keys: [SHCJWK]) {
        self.keys = keys
    }

    /// Reads a JWK set from its JSON value.
    public init(json: JSONValue) throws(SHCKeyError) {
        guard case .object = json else { throw .notAnObject }
        guard let entries = json["keys"]?.arrayValue else { throw .missingKeysArray }
        var keys: [SHCJWK] = []
        for entry in entries {
            if let key = try? SHCJWK(json: entry) { keys.append(key) }
        }
        self.keys = keys
    }

    /// Reads a JWK set from JSON text.
    public init(jsonBytes: [UInt8]) throws(SHCKeyError) {
        let value: JSONValue
        do { value = try SHCLimits.default.parseJSON(jsonBytes) } catch { throw .invalidJSON(error) }
        try self.init(json: value)
    }

    /// The keys whose `kid` is `kid` (several when an issuer publishes one entry per certificate).
    public func keys(withKid kid: String) -> [SHCJWK] {
        keys.filter { $0.kid == kid }
    }

    /// The set with `crlVersion` of every key with this `kid` set to `version`.
    public func settingCRLVersion(_ version: Int, forKid kid: String) -> SHCJWKSet {
        SHCJWKSet(keys: keys.map { $0.kid == kid ? $0.settingCRLVersion(version) : $0 })
    }

    /// The set as JSON, `{"keys":[…]}`, each key as read or built.
    public var json: JSONValue {
        .object(members: [.init("keys", .array(keys.map(\.json)))])
    }

    /// The set as pretty-printed JSON text, ready to publish as `.well-known/jwks.json`.
    public func serialized() -> [UInt8] {
        JSONWriter.serialize(json, style: .pretty) + [0x0A]
    }
}
