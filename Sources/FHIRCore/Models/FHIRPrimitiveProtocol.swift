// What every FHIR version's models share about primitives. Each models module (`ModelsR4`,
// `ModelsDSTU2`) declares its own nominal `FHIRPrimitive<T>`, holding that version's `Extension`,
// as a value and a companion box; everything else is written once, here.

/// The content of a primitive's `_name` companion member (its `id` and extensions), kept out of
/// line in one shared, immutable box: a primitive is the size of its value plus a pointer.
public final class FHIRPrimitiveCompanion<Extension: Hashable & Sendable>: Sendable, Hashable {
    /// The element id.
    public let id: FHIRString?
    /// The extensions.
    public let `extension`: [Extension]?

    /// A companion holding `id` and `extension`.
    @inlinable public init(id: FHIRString?, extension: [Extension]?) {
        self.id = id
        self.extension = `extension`
    }

    public static func == (lhs: FHIRPrimitiveCompanion, rhs: FHIRPrimitiveCompanion) -> Bool {
        lhs === rhs || (lhs.id == rhs.id && lhs.extension == rhs.extension)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(`extension`)
    }
}

/// A FHIR `Extension` of some version: what the shared runtime needs to know of it.
public protocol FHIRExtensionProtocol: FHIRJSONCodable {
    /// The extension's `url`, as text.
    var extensionURL: String? { get }
}

/// Something that carries extensions (elements, domain resources, primitives).
public protocol FHIRExtensible {
    /// The version's `Extension`.
    associatedtype ExtensionType: FHIRExtensionProtocol
    /// The extensions.
    var `extension`: [ExtensionType]? { get }
}

extension FHIRExtensible {
    /// The extensions with the given url.
    public func extensions(for url: String) -> [ExtensionType] {
        (`extension` ?? []).filter { $0.extensionURL == url }
    }
}

/// A FHIR primitive element: an optional value plus the `id` and extensions that FHIR JSON carries
/// in the `_name` companion member. A primitive may have extensions and no value.
///
/// Each models module's `FHIRPrimitive<T>` conforms; all behaviour (initializers, literals, the
/// `id`/`extension` accessors, `.string`/`.date`… conveniences) comes from extensions of this
/// protocol.
public protocol FHIRPrimitiveProtocol: FHIRExtensible, Sendable, Hashable, CustomStringConvertible {
    /// The value type (`FHIRString`, `DateTime`, a code enum…).
    associatedtype PrimitiveType: FHIRPrimitiveValue
    /// The value, if any.
    var value: PrimitiveType? { get set }
    /// The `_name` companion, nil when the primitive has neither id nor extensions.
    var companion: FHIRPrimitiveCompanion<ExtensionType>? { get set }
    /// A primitive from its value and companion box.
    init(value: PrimitiveType?, companion: FHIRPrimitiveCompanion<ExtensionType>?)
}

extension FHIRPrimitiveProtocol {
    /// A primitive with a value, an element id and extensions, each optional (FHIRModels'
    /// initializer).
    @inlinable public init(_ value: PrimitiveType? = nil, id: String? = nil, extension: [ExtensionType]? = nil) {
        self.init(value: value,
                  companion: id == nil && `extension` == nil ? nil : FHIRPrimitiveCompanion(id: id.map { FHIRString($0) }, extension: `extension`))
    }

    /// The element id from the `_name` companion (a `String`, as in FHIRModels).
    @inlinable public var id: String? {
        get { companion?.id?.string }
        set { setCompanion(id: newValue.map { FHIRString($0) }, extension: `extension`) }
    }

    /// Whether there is neither a value nor an id nor extensions (FHIRModels' `isNull`).
    @inlinable public var isNull: Bool { value == nil && companion == nil }

    /// Whether there is an id or extensions (FHIRModels' `hasPrimitiveData`).
    @inlinable public var hasPrimitiveData: Bool { companion != nil }

    /// A debugging description of value, id and extension count (FHIRModels'
    /// `primitiveDescription`).
    public var primitiveDescription: String {
        let value = value.map { "value=\"\($0)\"" } ?? "nil value"
        let id = id.map { "id=\"\($0)\"" } ?? "nil id"
        let extensions = `extension`.map { "extensions=\"\($0.count)\"" } ?? "nil extensions"
        return "<\(type(of: self)) \(value), \(id), \(extensions)>"
    }

    /// Whether the primitive's value is `rhs` (id and extensions aside), as in FHIRModels.
    public static func == (lhs: Self, rhs: PrimitiveType) -> Bool { lhs.value == rhs }
    /// Whether `lhs` is the primitive's value (id and extensions aside), as in FHIRModels.
    public static func == (lhs: PrimitiveType, rhs: Self) -> Bool { rhs.value == lhs }
    /// Whether the primitive's value is not `rhs`.
    public static func != (lhs: Self, rhs: PrimitiveType) -> Bool { lhs.value != rhs }
    /// Whether `lhs` is not the primitive's value.
    public static func != (lhs: PrimitiveType, rhs: Self) -> Bool { rhs.value != lhs }

    /// The extensions from the `_name` companion.
    @inlinable public var `extension`: [ExtensionType]? {
        get { companion?.extension }
        set { setCompanion(id: companion?.id, extension: newValue) }
    }

    /// Replaces the companion's content.
    @inlinable public mutating func setCompanion(id: FHIRString?, extension: [ExtensionType]?) {
        companion = id == nil && `extension` == nil ? nil : FHIRPrimitiveCompanion(id: id, extension: `extension`)
    }

    /// Whether the `_name` companion is needed to write this primitive.
    @inlinable public var hasCompanion: Bool { companion != nil }

    /// The value's text, or "" without a value.
    public var description: String { value?.description ?? "" }
}

extension FHIRPrimitiveProtocol where PrimitiveType: ExpressibleByStringLiteral {
    /// A primitive from a string literal.
    public init(stringLiteral value: PrimitiveType.StringLiteralType) {
        self.init(PrimitiveType(stringLiteral: value))
    }
}

extension FHIRPrimitiveProtocol where PrimitiveType: ExpressibleByBooleanLiteral {
    /// A primitive from `true` or `false`.
    public init(booleanLiteral value: PrimitiveType.BooleanLiteralType) {
        self.init(PrimitiveType(booleanLiteral: value))
    }
}

extension FHIRPrimitiveProtocol where PrimitiveType: ExpressibleByFloatLiteral {
    /// A primitive from a floating-point literal.
    public init(floatLiteral value: PrimitiveType.FloatLiteralType) {
        self.init(PrimitiveType(floatLiteral: value))
    }
}

extension FHIRPrimitiveProtocol where PrimitiveType: ExpressibleByIntegerLiteral {
    /// A primitive from an integer literal.
    public init(integerLiteral value: PrimitiveType.IntegerLiteralType) {
        self.init(PrimitiveType(integerLiteral: value))
    }
}
