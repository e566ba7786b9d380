import FHIRCore

/// A FHIR primitive element: an optional value plus the `id` and extensions that FHIR JSON carries
/// in the `_name` companion member. A primitive may have extensions and no value.
public struct FHIRPrimitive<T: FHIRPrimitiveValue>: Sendable, Hashable {
    /// The value, if any.
    public var value: T?
    /// The element id from the `_name` companion.
    public var id: FHIRString?
    /// The extensions from the `_name` companion.
    public var `extension`: [Extension]?

    public init(_ value: T? = nil, id: FHIRString? = nil, extension: [Extension]? = nil) {
        self.value = value
        self.id = id
        self.extension = `extension`
    }

    /// Whether the `_name` companion is needed to write this primitive.
    @inlinable public var hasCompanion: Bool { id != nil || `extension` != nil }

    /// The extensions with the given url.
    public func extensions(for url: String) -> [Extension] {
        (`extension` ?? []).filter { $0.url.value?.string == url }
    }
}

extension FHIRPrimitive: ExpressibleByUnicodeScalarLiteral where T: ExpressibleByStringLiteral {
    public init(unicodeScalarLiteral value: T.StringLiteralType) {
        self.init(T(stringLiteral: value))
    }
}

extension FHIRPrimitive: ExpressibleByExtendedGraphemeClusterLiteral where T: ExpressibleByStringLiteral {
    public init(extendedGraphemeClusterLiteral value: T.StringLiteralType) {
        self.init(T(stringLiteral: value))
    }
}

extension FHIRPrimitive: ExpressibleByStringLiteral where T: ExpressibleByStringLiteral {
    public init(stringLiteral value: T.StringLiteralType) {
        self.init(T(stringLiteral: value))
    }
}

extension FHIRPrimitive: ExpressibleByBooleanLiteral where T: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: T.BooleanLiteralType) {
        self.init(T(booleanLiteral: value))
    }
}

extension FHIRPrimitive: ExpressibleByIntegerLiteral where T: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: T.IntegerLiteralType) {
        self.init(T(integerLiteral: value))
    }
}

extension FHIRPrimitive: CustomStringConvertible {
    public var description: String { value?.description ?? "" }
}
