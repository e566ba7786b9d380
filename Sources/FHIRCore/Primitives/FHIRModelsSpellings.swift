import Foundation

// FHIRModels' names for the primitive values' members, beside ours, so code written against
// FHIRModels compiles unchanged. Ours stay: they keep what FHIRModels loses (a decimal's text,
// a zone as written).

/// FHIRModels' name for the protocol of primitive values.
public typealias FHIRPrimitiveType = FHIRPrimitiveValue

extension Base64Binary {
    /// The base64 text (FHIRModels' name for ``string``).
    public var dataString: String {
        get { string }
        set { string = newValue }
    }

    /// The base64 encoding of `data` (FHIRModels' failable spelling of ``init(data:)``; it never
    /// fails).
    public init?(with data: Data) {
        self.init(data: data)
    }

    /// The decoded bytes (FHIRModels' spelling of ``data``; the encoding is not used, as base64
    /// text is ASCII).
    public func data(using encoding: String.Encoding = .utf8) -> Data? {
        data
    }
}

extension FHIRString {
    public static func == (lhs: String, rhs: FHIRString) -> Bool { lhs == rhs.string }
    public static func == (lhs: FHIRString, rhs: String) -> Bool { lhs.string == rhs }
}

extension FHIRBool {
    public static func == (lhs: Bool, rhs: FHIRBool) -> Bool { lhs == rhs.bool }
    public static func == (lhs: FHIRBool, rhs: Bool) -> Bool { lhs.bool == rhs }
}
