import ExactJSON

/// The `heartScope` member of a permission (§1.4, HEART vocabulary), as sent.
public struct HeartScope: Sendable, Hashable {
    /// `read` or `write` (also `*`, or SMART v2 letters such as `rs`); outside the legacy signature.
    public var accessType: String?
    /// HL7 v3 Confidentiality ceiling code: U, L, M, N, R or V.
    public var confidentialityScope: String
    /// `patient` (or `user`, `system`).
    public var permissionType: String
    /// A FHIR resource type or `*`.
    public var resourceScope: String
    /// HL7 v3 ActCode sensitivity codes the grantee may see (ETH, SOC, …).
    public var sensitivityScope: [String]

    /// Creates a scope.
    public init(accessType: String?, confidentialityScope: String, permissionType: String, resourceScope: String, sensitivityScope: [String]) {
        self.accessType = accessType
        self.confidentialityScope = confidentialityScope
        self.permissionType = permissionType
        self.resourceScope = resourceScope
        self.sensitivityScope = sensitivityScope
    }

    init(fields: JSONFields) throws(SMOACError) {
        accessType = try fields.optionalString("accessType")
        confidentialityScope = try fields.string("confidentialityScope")
        permissionType = try fields.string("permissionType")
        resourceScope = try fields.string("resourceScope")
        sensitivityScope = try fields.optionalStringArray("sensitivityScope") ?? []
        var signed = [("confidentialityScope", confidentialityScope), ("permissionType", permissionType),
                      ("resourceScope", resourceScope), ("accessType", accessType ?? "")]
        signed += sensitivityScope.map { ("sensitivityScope", $0) }
        for (name, value) in signed where value.utf8.contains(UInt8(ascii: "|")) {
            throw .malformedRequest("\(fields.context): \"\(name)\" may not contain '|'")
        }
    }

    var json: JSONValue {
        var object = JSONObject()
        object.append("accessType", ifPresent: accessType)
        object.append("confidentialityScope", confidentialityScope)
        object.append("permissionType", permissionType)
        object.append("resourceScope", resourceScope)
        object.append("sensitivityScope", strings: sensitivityScope)
        return .object(object)
    }
}
