/// How strictly FHIR JSON is decoded.
public struct FHIRDecodingOptions: Sendable, Hashable {
    /// Reject members a type does not define (the FHIR JSON rule). When false they are dropped.
    public var rejectsUnknownMembers: Bool
    /// The deepest nesting the JSON parser accepts.
    public var maximumDepth: Int
    /// The deepest nesting of FHIR elements decoded (each object is one level). Decoding recurses
    /// once per level, so this bounds its stack use; real resources nest a few dozen levels at most.
    /// The default, 64, fits Linux's 8 MiB thread stacks even in debug builds (where a level can
    /// take tens of KiB); on threads with small stacks (512 KiB on Darwin) lower it.
    public var maximumElementDepth: Int

    public init(rejectsUnknownMembers: Bool = true, maximumDepth: Int = 512, maximumElementDepth: Int = 64) {
        self.rejectsUnknownMembers = rejectsUnknownMembers
        self.maximumDepth = maximumDepth
        self.maximumElementDepth = maximumElementDepth
    }

    /// Strict decoding (the default).
    public static let strict = FHIRDecodingOptions()
    /// Lenient decoding: unknown members are dropped.
    public static let lenient = FHIRDecodingOptions(rejectsUnknownMembers: false)
}
