/// A requested scope string, parsed, and its intersection with what the client holds.
public struct ScopeRequest: Sendable, Hashable {
    /// The scopes that parsed, in request order, without duplicates.
    public var scopes: [SmartScope]
    /// Tokens that did not parse (malformed resource or label scopes), verbatim.
    public var malformed: [String]

    /// Parses a space-separated scope string (runs of spaces are one separator).
    public init(_ text: String) {
        scopes = []
        malformed = []
        var seen = Set<SmartScope>()   // linear de-duplication, whatever the scope string's length
        for token in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            if let scope = SmartScope(token) {
                if seen.insert(scope).inserted { scopes.append(scope) }
            } else {
                malformed.append(token)
            }
        }
    }

    /// The requested confidentiality ceiling: the highest `conf/` asked for, else the policy's
    /// default ceiling.
    public func requestedCeiling(policy: LabelPolicy = .default) -> ConfidentialityLevel {
        scopes.compactMap { if case .confidentiality(let level) = $0 { level } else { nil } }.max() ?? policy.defaultCeiling
    }

    /// The requested sensitive categories.
    public var requestedSensitivities: SensitivitySet {
        SensitivitySet(Set(scopes.compactMap { if case .sensitivity(let code) = $0 { code } else { nil } }))
    }

    /// Granted = requested ∩ held (§2.5): for every requested resource scope and every held
    /// permission of the same context, the common resource types and interactions, with the
    /// lower of the requested and held confidentiality ceilings and the common sensitivities.
    /// A granular scope (`patient/Observation.rs?category=laboratory`, one resource type) grants
    /// the same with its query as the grant's ``PermissionScope/filter``; one on `*` or with a
    /// query that does not parse (``ScopeFilter``) is dropped, as are `btg` and other scopes.
    public func grant(held: [PermissionScope], policy: LabelPolicy = .default) -> GrantedScope {
        let requested = PermissionScope(permissionType: .patient, resource: .all, access: .all,
                                        confidentialityCeiling: requestedCeiling(policy: policy), sensitivities: requestedSensitivities)
        var grants: [PermissionScope] = []
        var grantSet = Set<PermissionScope>()
        var resourceScopes: [SmartScope] = []
        var resourceScopeSet = Set<SmartScope>()
        var dropped = malformed
        for scope in scopes {
            guard case .resource(let resourceScope) = scope else {
                switch scope {
                case .confidentiality, .sensitivity: break
                default: dropped.append(scope.description)
                }
                continue
            }
            var filter: ScopeFilter?
            if let parameters = resourceScope.parameters {
                guard case .type = resourceScope.resource, let parsed = ScopeFilter(parameters) else {
                    dropped.append(scope.description)
                    continue
                }
                filter = parsed
            }
            var wanted = requested
            wanted.permissionType = resourceScope.context
            wanted.resource = resourceScope.resource
            wanted.access = resourceScope.access
            wanted.filter = filter
            var matched = false
            for permission in held {
                guard let grant = wanted.intersection(permission) else { continue }
                matched = true
                if grantSet.insert(grant).inserted {
                    grants.append(grant)
                    let output = SmartScope.resource(ResourceAccessScope(context: grant.permissionType, resource: grant.resource,
                                                                         access: grant.access, syntax: resourceScope.syntax,
                                                                         parameters: grant.filter?.description))
                    if resourceScopeSet.insert(output).inserted { resourceScopes.append(output) }
                }
            }
            if !matched { dropped.append(scope.description) }
        }
        var labelScopes: [SmartScope] = []
        if !grants.isEmpty {
            if scopes.contains(where: { if case .confidentiality = $0 { true } else { false } }),
               let ceiling = grants.map(\.confidentialityCeiling).max() {
                labelScopes.append(.confidentiality(ceiling))
            }
            var granted = Set<SensitivityCode>()
            for grant in grants { granted.formUnion(grant.sensitivities.codes) }
            labelScopes += granted.sorted().map { .sensitivity($0) }
        }
        for scope in scopes {
            if case .sensitivity(let code) = scope, !labelScopes.contains(.sensitivity(code)) { dropped.append(scope.description) }
        }
        return GrantedScope(grants: grants, scopes: resourceScopes + labelScopes, dropped: dropped)
    }
}

extension ScopeRequest {
    /// Requested ∩ held over held permissions, also returning the identifiers of the
    /// permissions the grants rest on (what a code or token must carry for re-checking).
    public func grant(heldPermissions: [HeldPermission], policy: LabelPolicy = .default) -> (scope: GrantedScope, permissionIDs: [PermissionID]) {
        let granted = grant(held: heldPermissions.map(\.scope), policy: policy)
        var ids: [PermissionID] = []
        for held in heldPermissions {
            guard let id = held.permissionID, granted.grants.contains(where: { $0.isSubset(of: held.scope) }), !ids.contains(id) else { continue }
            ids.append(id)
        }
        return (granted, ids)
    }
}
