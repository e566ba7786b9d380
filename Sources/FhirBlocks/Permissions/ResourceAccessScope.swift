/// A SMART resource scope (§2.5): `patient/Observation.read` (v1) or `patient/Observation.rs`
/// (v2), optionally with a granular `?param=value` filter (v2 only).
public struct ResourceAccessScope: Sendable, Hashable, CustomStringConvertible {
    /// Which syntax a scope was written in.
    public enum Syntax: Sendable, Hashable {
        /// `.read`, `.write`, `.*`.
        case v1
        /// `.cruds` letters.
        case v2
    }

    /// `patient`, `user` or `system`.
    public var context: PermissionType
    /// The resource types.
    public var resource: ResourceScope
    /// The interactions.
    public var access: AccessRights
    /// The syntax it was written in (output uses v1 when the rights allow it).
    public var syntax: Syntax
    /// The granular filter after `?`, if any.
    public var parameters: String?

    /// Creates a scope.
    public init(context: PermissionType, resource: ResourceScope, access: AccessRights, syntax: Syntax = .v2, parameters: String? = nil) {
        self.context = context
        self.resource = resource
        self.access = access
        self.syntax = syntax
        self.parameters = parameters
    }

    /// Parses `context/Resource.suffix[?params]`, or nil (undefined or out-of-order suffixes
    /// such as `.dus` are never reinterpreted).
    public init?(_ text: String) {
        var body = Substring(text)
        var parameters: String?
        if let question = body.firstIndex(of: "?") {
            parameters = String(body[body.index(after: question)...])
            body = body[..<question]
            guard let parameters, !parameters.isEmpty else { return nil }
        }
        guard let slash = body.firstIndex(of: "/"), let dot = body.lastIndex(of: "."), slash < dot,
              let context = PermissionType(rawValue: String(body[..<slash])),
              let resource = ResourceScope(String(body[body.index(after: slash)..<dot])) else { return nil }
        let suffix = String(body[body.index(after: dot)...])
        let syntax: Syntax = ["read", "write", "*"].contains(suffix) ? .v1 : .v2
        guard let access = AccessRights(scopeSuffix: suffix), !(syntax == .v1 && parameters != nil) else { return nil }
        self.init(context: context, resource: resource, access: access, syntax: syntax, parameters: parameters)
    }

    /// The scope text: v1 when written in v1 and the rights are a v1 suffix, else v2.
    public var description: String {
        let suffix = syntax == .v1 ? (access.v1Text ?? access.v2Text) : access.v2Text
        return "\(context.rawValue)/\(resource).\(suffix)" + (parameters.map { "?\($0)" } ?? "")
    }
}
