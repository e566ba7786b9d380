/// How strictly FHIR JSON is decoded.
public struct FHIRDecodingOptions: Sendable, Hashable {
    /// Reject members a type does not define (the FHIR JSON rule). When false they are dropped.
    public var rejectsUnknownMembers: Bool
    /// The deepest nesting the JSON parser accepts.
    public var maximumDepth: Int

    public init(rejectsUnknownMembers: Bool = true, maximumDepth: Int = 512) {
        self.rejectsUnknownMembers = rejectsUnknownMembers
        self.maximumDepth = maximumDepth
    }

    /// Strict decoding (the default).
    public static let strict = FHIRDecodingOptions()
    /// Lenient decoding: unknown members are dropped.
    public static let lenient = FHIRDecodingOptions(rejectsUnknownMembers: false)
}
