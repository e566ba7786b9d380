import FHIRCore

/// A FHIR primitive element: an optional value plus the `id` and extensions that FHIR JSON carries
/// in the `_name` companion member. A primitive may have extensions and no value.
///
/// The id and extensions are rare in real data, so they live out of line in one shared box: a
/// primitive is the size of its value plus a pointer, which keeps every model type small (they
/// hold dozens of primitives) and cheap to move. The box is copied on write, so values keep value
/// semantics.
public struct FHIRPrimitive<T: FHIRPrimitiveValue>: Sendable, Hashable {
    /// The value, if any.
    public var value: T?
    @usableFromInline var companion: Companion?

    /// The `_name` companion's content.
    @usableFromInline final class Companion: Sendable, Hashable {
        @usableFromInline let id: FHIRString?
        @usableFromInline let `extension`: [Extension]?

        @usableFromInline init(id: FHIRString?, extension: [Extension]?) {
            self.id = id
            self.extension = `extension`
        }

        @usableFromInline static func == (lhs: Companion, rhs: Companion) -> Bool {
            lhs === rhs || (lhs.id == rhs.id && lhs.extension == rhs.extension)
        }

        @usableFromInline func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(`extension`)
        }
    }

    @inlinable public init(_ value: T? = nil, id: FHIRString? = nil, extension: [Extension]? = nil) {
        self.value = value
        companion = id == nil && `extension` == nil ? nil : Companion(id: id, extension: `extension`)
    }

    /// The element id from the `_name` companion.
    @inlinable public var id: FHIRString? {
        get { companion?.id }
        set { setCompanion(id: newValue, extension: `extension`) }
    }

    /// The extensions from the `_name` companion.
    @inlinable public var `extension`: [Extension]? {
        get { companion?.extension }
        set { setCompanion(id: id, extension: newValue) }
    }

    @inlinable mutating func setCompanion(id: FHIRString?, extension: [Extension]?) {
        companion = id == nil && `extension` == nil ? nil : Companion(id: id, extension: `extension`)
    }

    /// Whether the `_name` companion is needed to write this primitive.
    @inlinable public var hasCompanion: Bool { companion != nil }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.value == rhs.value && lhs.companion == rhs.companion
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
        hasher.combine(companion)
    }

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
