import FHIRCore

/// A FHIR primitive element: an optional value plus the `id` and extensions that FHIR JSON carries
/// in the `_name` companion member. A primitive may have extensions and no value.
///
/// The id and extensions are rare in real data, so they live out of line in one shared box: a
/// primitive is the size of its value plus a pointer, which keeps every model type small (they
/// hold dozens of primitives) and cheap to move. The box is copied on write, so values keep value
/// semantics. Its behaviour (`init(_:id:extension:)`, `id`, `extension`, `extensions(for:)`,
/// literals, `.string`, `.date`…) is FHIRCore's `FHIRPrimitiveProtocol`, shared by every version.
public struct FHIRPrimitive<T: FHIRPrimitiveValue>: FHIRPrimitiveProtocol {
    /// The value type.
    public typealias PrimitiveType = T
    /// This version's `Extension`.
    public typealias ExtensionType = Extension

    /// The value, if any.
    public var value: T?
    /// The `_name` companion's content, nil when there is no id and no extension.
    public var companion: FHIRPrimitiveCompanion<Extension>?

    /// A primitive from its value and companion box.
    @inlinable public init(value: T?, companion: FHIRPrimitiveCompanion<Extension>?) {
        self.value = value
        self.companion = companion
    }
}

extension FHIRPrimitive: ExpressibleByUnicodeScalarLiteral where T: ExpressibleByStringLiteral {
    public typealias UnicodeScalarLiteralType = T.StringLiteralType
}

extension FHIRPrimitive: ExpressibleByExtendedGraphemeClusterLiteral where T: ExpressibleByStringLiteral {
    public typealias ExtendedGraphemeClusterLiteralType = T.StringLiteralType
}

extension FHIRPrimitive: ExpressibleByStringLiteral where T: ExpressibleByStringLiteral {
    public typealias StringLiteralType = T.StringLiteralType
}

extension FHIRPrimitive: ExpressibleByBooleanLiteral where T: ExpressibleByBooleanLiteral {
    public typealias BooleanLiteralType = T.BooleanLiteralType
}

extension FHIRPrimitive: ExpressibleByIntegerLiteral where T: ExpressibleByIntegerLiteral {
    public typealias IntegerLiteralType = T.IntegerLiteralType
}

extension FHIRPrimitive: ExpressibleByFloatLiteral where T: ExpressibleByFloatLiteral {
    public typealias FloatLiteralType = T.FloatLiteralType
}

extension Extension: FHIRExtensionProtocol {
    /// The extension's `url`, as text.
    public var extensionURL: String? { url.value?.string }
}
