/// Why a FHIR JSON document could not be decoded, with the path of the offending element
/// (`Bundle.entry[3].resource.status`). It never carries the offending value, which may be patient data.
public struct FHIRDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One step of a path: a member name or an array index.
    public enum PathComponent: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public enum Reason: Sendable, Hashable {
        /// The bytes are not JSON.
        case invalidJSON(JSONParseError)
        /// A required element is absent.
        case missingRequiredElement
        /// The JSON kind is wrong (`expected` and `found` are kind names such as "object" or "array").
        case wrongJSONType(expected: String, found: String)
        /// A primitive's lexical form is wrong.
        case invalidPrimitive(FHIRPrimitiveError)
        /// A member this type does not define (strict decoding only).
        case unknownMember
        /// More than one type of a choice element (`valueString` and `valueQuantity`).
        case multipleChoiceTypes([String])
        /// `resourceType` is missing or names another type.
        case resourceTypeMismatch(expected: String, found: String?)
        /// A primitive array and its `_name` companion differ in length.
        case companionLengthMismatch(values: Int, companions: Int)
        /// `null` where FHIR JSON does not allow it.
        case nullNotAllowed
        /// An empty `_name` companion (`{}`), which FHIR JSON does not allow.
        case emptyCompanion
        /// Elements nest deeper than `FHIRDecodingOptions.maximumElementDepth`.
        case tooDeep(Int)
    }

    /// The path from the root, without the root's type name.
    public var path: [PathComponent]
    public var reason: Reason

    public init(path: [PathComponent] = [], reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// The same error one level further down: `key` is prepended to the path.
    @inlinable public func prefixed(_ component: PathComponent) -> FHIRDecodingError {
        var copy = self
        copy.path.insert(component, at: 0)
        return copy
    }

    /// The path as text, `entry[3].resource.status`.
    public var pathDescription: String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    public var description: String {
        let location = path.isEmpty ? "at the root" : "at \(pathDescription)"
        switch reason {
        case .invalidJSON(let error): return error.description
        case .missingRequiredElement: return "missing required element \(location)"
        case .wrongJSONType(let expected, let found): return "expected \(expected), found \(found) \(location)"
        case .invalidPrimitive(let error): return "\(error) \(location)"
        case .unknownMember: return "unknown element \(location)"
        case .multipleChoiceTypes(let keys):
            return "more than one type of a choice element (\(keys.joined(separator: ", "))) \(location)"
        case .resourceTypeMismatch(let expected, let found):
            return "resourceType \(found.map { "\"\($0)\"" } ?? "missing") where \"\(expected)\" was expected \(location)"
        case .companionLengthMismatch(let values, let companions):
            return "\(values) values but \(companions) entries in the _ companion array \(location)"
        case .nullNotAllowed: return "null is not allowed \(location)"
        case .emptyCompanion: return "an empty _ companion object \(location)"
        case .tooDeep(let limit): return "elements nest deeper than \(limit) levels \(location)"
        }
    }
}
