/// Why a signature could not be made or read. Messages describe the structure, never the
/// sample's values.
public struct SampleSignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public enum Kind: String, Sendable, Hashable {
        /// The metadata value is not base64 text.
        case notBase64
        /// The bytes are not a DER CMS ContentInfo holding a SignedData of the expected shape.
        case malformedSignedData
        /// The SignedData is well formed but uses something this profile leaves out (signed
        /// attributes, several signers, an issuer-and-serial-number signer identifier, detached content).
        case unsupportedStructure
        /// The signed content is not a DER ``SampleSignatureContent``.
        case malformedContent
        /// The sample cannot be described as signed content (a date outside the years
        /// 1–9999, a value that is not finite).
        case unencodableContent
    }

    /// The kind of problem.
    public let kind: Kind
    /// What was wrong, without patient data.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
