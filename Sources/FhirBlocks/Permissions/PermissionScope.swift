/// What a permission (or one grant of a token) covers: the HEART tuple of §1.8 in typed form.
public struct PermissionScope: Sendable, Hashable, CustomStringConvertible {
    /// `patient`, `user` or `system`.
    public var permissionType: PermissionType
    /// The resource types.
    public var resource: ResourceScope
    /// The interactions.
    public var access: AccessRights
    /// The highest confidentiality level visible.
    public var confidentialityCeiling: ConfidentialityLevel
    /// The sensitive categories visible.
    public var sensitivities: SensitivitySet
    /// A SMART v2 granular scope's query: only the resources matching it are covered (nil:
    /// every resource of the types). A permission a wallet writes has none; a token's grant
    /// has one when the client asked for a granular scope. ``AccessDecision`` never lets a
    /// filtered grant decide alone: the server first keeps the filtered grants whose query the
    /// resource matches, without their filter.
    public var filter: ScopeFilter?

    /// Creates a scope.
    public init(permissionType: PermissionType, resource: ResourceScope, access: AccessRights,
                confidentialityCeiling: ConfidentialityLevel, sensitivities: SensitivitySet, filter: ScopeFilter? = nil) {
        self.permissionType = permissionType
        self.resource = resource
        self.access = access
        self.confidentialityCeiling = confidentialityCeiling
        self.sensitivities = sensitivities
        self.filter = filter
    }

    /// The same scope without its ``filter``.
    public var unfiltered: PermissionScope {
        var copy = self
        copy.filter = nil
        return copy
    }

    /// Everything about one patient: what a wallet holds over its own data.
    public static let owner = PermissionScope(permissionType: .patient, resource: .all, access: .all,
                                              confidentialityCeiling: .V, sensitivities: .all)

    /// Reading the whole audit log (`system/AuditEvent.rs`): what a client the server lists as
    /// an auditor holds.
    public static let auditor = PermissionScope(permissionType: .system, resource: .type("AuditEvent"), access: [.read, .search],
                                                confidentialityCeiling: .V, sensitivities: .all)

    /// The scope an auditor asks the token endpoint for.
    public static let auditorScopeText = "system/AuditEvent.rs"

    /// Reads a wire `heartScope`. `accessType` absent means `read`. Unknown codes are
    /// `malformedRequest`.
    public init(heartScope: HeartScope) throws(SMOACError) {
        guard let type = PermissionType(rawValue: heartScope.permissionType) else {
            throw .malformedRequest("heartScope: unknown permissionType")
        }
        guard let resource = ResourceScope(heartScope.resourceScope) else {
            throw .malformedRequest("heartScope: resourceScope is not a resource type or *")
        }
        guard let access = AccessRights(scopeSuffix: heartScope.accessType ?? "read") else {
            throw .malformedRequest("heartScope: unknown accessType")
        }
        guard let ceiling = ConfidentialityLevel(rawValue: heartScope.confidentialityScope) else {
            throw .malformedRequest("heartScope: confidentialityScope is not one of U L M N R V")
        }
        var codes: Set<SensitivityCode> = []
        for text in heartScope.sensitivityScope {
            guard let code = SensitivityCode(text) else { throw .malformedRequest("heartScope: a sensitivityScope code is not valid") }
            codes.insert(code)
        }
        self.init(permissionType: type, resource: resource, access: access, confidentialityCeiling: ceiling, sensitivities: SensitivitySet(codes))
    }

    /// The wire `heartScope` (sensitivities sorted; an unrestricted set is written as empty).
    public var heartScope: HeartScope {
        HeartScope(accessType: access.accessTypeText, confidentialityScope: confidentialityCeiling.rawValue,
                   permissionType: permissionType.rawValue, resourceScope: resource.description,
                   sensitivityScope: sensitivities.sortedCodes.map(\.rawValue))
    }

    /// Whether everything this scope allows is also allowed by `other` (the no-escalation rule;
    /// a filtered scope is within an unfiltered one, not the reverse).
    public func isSubset(of other: PermissionScope) -> Bool {
        (other.filter == nil || other.filter == filter)
            && permissionType == other.permissionType
            && other.resource.covers(resource)
            && other.access.isSuperset(of: access)
            && confidentialityCeiling <= other.confidentialityCeiling
            && sensitivities.isSubset(of: other.sensitivities)
    }

    /// What both scopes allow, or nil if that is nothing (different type, no common resource
    /// or no common interaction, or two different filters).
    public func intersection(_ other: PermissionScope) -> PermissionScope? {
        guard permissionType == other.permissionType, let resource = resource.intersection(other.resource) else { return nil }
        let access = access.intersection(other.access)
        guard !access.isEmpty else { return nil }
        if let filter, let otherFilter = other.filter, filter != otherFilter { return nil }
        return PermissionScope(permissionType: permissionType, resource: resource, access: access,
                               confidentialityCeiling: min(confidentialityCeiling, other.confidentialityCeiling),
                               sensitivities: sensitivities.intersection(other.sensitivities), filter: filter ?? other.filter)
    }

    /// For example `patient/Patient.rs conf≤V sens{ETH,SOC}`.
    public var description: String {
        let sens = sensitivities.isUnrestricted ? "*" : sensitivities.sortedCodes.map(\.rawValue).joined(separator: ",")
        return "\(permissionType.rawValue)/\(resource).\(access.v2Text)" + (filter.map { "?\($0)" } ?? "")
            + " conf≤\(confidentialityCeiling.rawValue) sens{\(sens)}"
    }
}
