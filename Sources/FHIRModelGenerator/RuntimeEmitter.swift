import Foundation

/// Emits `Runtime.swift`: the few declarations that bind a version's generated types (its
/// `Extension`, `Meta`, `Narrative`, `ResourceProxy`, `ResourceType`, element table) to FHIRCore's
/// shared runtime. Swift needs them in the models module itself (a nominal `FHIRPrimitive` that
/// holds this version's `Extension`, protocols whose requirements name this version's types), so
/// they are written here once and emitted into each version; everything that is the same for
/// every version (primitive behaviour, JSON coding, unknown resources, the validation walk) is
/// FHIRCore's.
enum RuntimeEmitter {
    static func file(release: FHIRRelease) -> String {
        let module = release == .r4 ? "ModelsR4" : "ModelsDSTU2"
        let version = "\(release.displayName) (\(release.version))"
        let header = SwiftEmitter.header(release).replacingOccurrences(of: "import FHIRCore\n", with: """
            // `import \(module)` alone brings FHIRCore's primitives and JSON types (`DateTime`, `FHIRDate`,
            // `FHIRDecimal`, `FHIRString`, `FHIRPrimitive`'s values…), as FHIRModels' `\(module)` brings
            // its core module: code written against FHIRModels needs no second import.
            @_exported import FHIRCore
            import Foundation

            """)
        return header + #"""

            // MARK: Primitives

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

            // Making this version's primitives from plain values, in FHIRModels' spellings. (Reading plain
            // values out of primitives, `.string`, `.date`…, is FHIRCore's, shared by every version.)

            extension String {
                /// This string as a FHIR string primitive.
                public func asFHIRStringPrimitive() -> FHIRPrimitive<FHIRString> { FHIRPrimitive(FHIRString(self)) }

                /// This string as a FHIR URI primitive, or nil when it is not a URL (FHIRModels' rule;
                /// `FHIRPrimitive(FHIRURI(text))` keeps any text).
                public func asFHIRURIPrimitive() -> FHIRPrimitive<FHIRURI>? {
                    asFHIRURI().map { FHIRPrimitive($0) }
                }
            }

            extension FHIRPrimitiveValue {
                /// This value as a primitive, with an element id and extensions if given (FHIRModels'
                /// spelling: `FHIRString("Kelly").asPrimitive()`).
                public func asPrimitive(with id: String? = nil, extension: [Extension]? = nil) -> FHIRPrimitive<Self> {
                    FHIRPrimitive(self, id: id, extension: `extension`)
                }
            }

            extension Int {
                /// This integer as a FHIR `integer` primitive (FHIRModels' spelling); values beyond 32 bits
                /// are clamped.
                public func asFHIRIntegerPrimitive() -> FHIRPrimitive<FHIRInteger> {
                    FHIRPrimitive(FHIRInteger(Int32(clamping: self)))
                }

                /// This integer as a FHIR `positiveInt` primitive; one under 1 becomes 1, as in FHIRModels.
                public func asFHIRPositiveIntegerPrimitive() -> FHIRPrimitive<FHIRPositiveInteger> {
                    FHIRPrimitive(FHIRPositiveInteger(Int32(clamping: self)))
                }

                /// This integer as a FHIR `unsignedInt` primitive; a negative one becomes 0, as in FHIRModels.
                public func asFHIRUnsignedIntegerPrimitive() -> FHIRPrimitive<FHIRUnsignedInteger> {
                    FHIRPrimitive(FHIRUnsignedInteger(Int32(clamping: self)))
                }
            }

            extension Double {
                /// This number as a FHIR `decimal` primitive (FHIRModels' spelling); NaN and infinities, which
                /// FHIR cannot write, give a primitive without a value.
                public func asFHIRDecimalPrimitive() -> FHIRPrimitive<FHIRDecimal> {
                    FHIRPrimitive(FHIRDecimal(exactly: self))
                }
            }

            extension URL {
                /// This URL as a FHIR URI primitive (FHIRModels' spelling).
                public func asFHIRURIPrimitive() -> FHIRPrimitive<FHIRURI> { FHIRPrimitive(FHIRURI(self)) }
            }

            extension Bool {
                /// This boolean as a FHIR boolean primitive.
                public func asPrimitive() -> FHIRPrimitive<FHIRBool> { FHIRPrimitive(FHIRBool(self)) }
            }

            // MARK: Elements and resources

            /// A FHIR data type or backbone element: it has an `id` and extensions. (`extensions(for:)` and
            /// `Codable` come from FHIRCore's `FHIRExtensible` and `FHIRCodableModel`; generated code decodes
            /// it in place through `FHIRInPlaceDecodable`.)
            public protocol Element: FHIRCodableModel, FHIRInPlaceDecodable, FHIRExtensible where ExtensionType == Extension {
                /// Unique id for inter-element referencing.
                var id: FHIRPrimitive<FHIRString>? { get set }
                /// Additional content defined by implementations.
                var `extension`: [Extension]? { get set }
            }

            /// An element nested inside a resource or data type; it may carry modifier extensions.
            public protocol BackboneElement: Element {
                /// Extensions that cannot be ignored.
                var modifierExtension: [Extension]? { get set }
            }

            /// Any FHIR resource.
            public protocol Resource: FHIRCodableModel {
                /// The resource type of a generated resource struct.
                static var resourceType: ResourceType { get }
                /// The `resourceType` as written in JSON (for unknown resources, whatever they said).
                var resourceTypeName: String { get }
                /// Logical id of this artifact.
                var id: FHIRPrimitive<FHIRString>? { get }
                /// Metadata about the resource.
                var meta: Meta? { get }
                /// A set of rules under which this content was created.
                var implicitRules: FHIRPrimitive<FHIRURI>? { get }
                /// Language of the resource content.
                var language: FHIRPrimitive<FHIRString>? { get }
            }

            /// A resource with narrative, extensions and contained resources. (`extensions(for:)` comes from
            /// FHIRCore's `FHIRExtensible`.)
            public protocol DomainResource: Resource, FHIRExtensible where ExtensionType == Extension {
                /// Text summary of the resource, for human interpretation.
                var text: Narrative? { get }
                /// Contained, inline resources.
                var contained: [ResourceProxy]? { get }
                /// Additional content defined by implementations.
                var `extension`: [Extension]? { get }
                /// Extensions that cannot be ignored.
                var modifierExtension: [Extension]? { get }
            }

            extension Resource {
                public var resourceTypeName: String { Self.resourceType.rawValue }

                /// `Type/id`, the relative reference to this resource, when it has an id.
                public var relativeReference: String? {
                    id?.value.map { "\(resourceTypeName)/\($0.string)" }
                }
            }

            /// A resource whose `resourceType` this version does not define, kept as its JSON object so it
            /// survives decoding and encoding unchanged (FHIRCore's `FHIRUnknownResourceProtocol` reads and
            /// writes it).
            public struct UnknownResource: Resource, FHIRUnknownResourceProtocol {
                /// There is no static type for unknown resources; see ``resourceTypeName``.
                public static var resourceType: ResourceType { .unrecognized("") }

                /// The JSON object, `resourceType` included.
                public var json: JSONObject

                /// A resource from its JSON object.
                public init(json: JSONObject = JSONObject()) {
                    self.json = json
                }

                /// Wraps any resource by its JSON.
                public init(_ resource: any Resource) {
                    self.init(wrapping: resource)
                }

                /// The `resourceType` as written.
                public var resourceTypeName: String { json["resourceType"]?.stringValue ?? "" }
                public var id: FHIRPrimitive<FHIRString>? { primitiveMember("id") }
                public var meta: Meta? { elementMember("meta") }
                public var implicitRules: FHIRPrimitive<FHIRURI>? { primitiveMember("implicitRules") }
                public var language: FHIRPrimitive<FHIRString>? { primitiveMember("language") }
            }

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

            // MARK: Validation

            /// Validates FHIR \#(version) JSON beyond what decoding checks, and lists every problem with its
            /// path: unknown elements, JSON kinds, cardinality (min/max) and required elements, one type per
            /// choice, `_name` companions, primitive lexical forms (the regexes of the definitions), codes of
            /// required bindings, empty values, and references inside a resource or Bundle (`#id`,
            /// `resource:N`, `urn:uuid:`, relative `Type/id`).
            ///
            /// It walks the JSON itself with the element table generated from the StructureDefinitions, so a
            /// document that would not decode still gets its full list of problems. (`validate(_:)` and the
            /// walk are FHIRCore's `FHIRTableValidator` and `FHIRElementTable`, shared by every version.)
            public struct FHIRValidator: FHIRTableValidator {
                /// A validator of \#(release.displayName) resources.
                public init() {}

                /// The \#(release.displayName) element table, parsed once on first use.
                public static let elementTable = FHIRElementTable(
                    text: ElementDefinitions.table,
                    resourceTypes: Set(ResourceType.allKnownCases.map(\.rawValue)).subtracting(["Resource", "DomainResource"])
                )
            }

            """#
    }
}
