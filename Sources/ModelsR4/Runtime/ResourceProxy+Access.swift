import FHIRCore

extension ResourceProxy {
    /// The resource if it is a `T`: `proxy.get(if: Observation.self)`.
    public func get<T: Resource>(if type: T.Type) -> T? {
        self.get() as? T
    }

    /// The `resourceType` as written.
    public var resourceTypeName: String { self.get().resourceTypeName }
}

extension ResourceProxy: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(fhirJSON: JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try fhirJSONValue.encode(to: encoder)
    }
}
