import FHIRCore

extension ResourceProxy {
    /// The resource if it is a `T`: `proxy.get(if: Observation.self)`.
    public func get<T: Resource>(if type: T.Type) -> T? {
        self.get() as? T
    }

    /// The `resourceType` as written.
    public var resourceTypeName: String { self.get().resourceTypeName }

    /// The `resourceType` as written (FHIRModels' name for ``resourceTypeName``).
    public var resourceType: String { resourceTypeName }

    /// Wraps a resource (FHIRModels' spelling of ``init(_:)``).
    public init(with resource: any Resource) {
        self.init(resource)
    }
}

extension ResourceProxy: FHIRCodableModel {
    public init(from decoder: any Decoder) throws {
        try self.init(fhirJSON: JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try fhirJSONValue.encode(to: encoder)
    }
}
