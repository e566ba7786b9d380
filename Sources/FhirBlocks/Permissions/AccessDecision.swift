/// Whether a holder of some grants may perform an interaction on a resource (§1.8 FRS
/// enforcement, §2.7): some grant must cover the context, the resource type and the interaction,
/// and the resource's labels must pass that grant's confidentiality ceiling and sensitivity set.
public enum AccessDecision: Sendable, Hashable {
    /// Allowed.
    case permit
    /// No grant covers this resource type and interaction.
    case denyNoScope
    /// A grant covers it, but the resource is more confidential than its ceiling.
    case denyConfidentiality
    /// A grant covers it, but the resource carries a sensitivity tag the grant does not allow.
    case denySensitivity

    /// Whether the decision allows the access.
    public var isPermitted: Bool { self == .permit }

    /// Decides for one resource.
    public static func evaluate(grants: [PermissionScope], context: PermissionType = .patient, resourceType: String,
                                interaction: AccessRights, labels: SecurityLabels, policy: LabelPolicy = .default) -> AccessDecision {
        var result = AccessDecision.denyNoScope
        let confidentiality = labels.confidentiality ?? policy.unlabelledConfidentiality
        // A filtered grant (a granular scope) covers only the resources its query matches: the
        // caller resolves those first (it alone sees the resource), so here it covers nothing.
        for grant in grants where grant.filter == nil && grant.permissionType == context && grant.resource.covers(resourceType: resourceType)
            && grant.access.isSuperset(of: interaction) {
            guard confidentiality <= grant.confidentialityCeiling else {
                if result == .denyNoScope { result = .denyConfidentiality }
                continue
            }
            guard labels.sensitivities.allSatisfy(grant.sensitivities.contains) else {
                result = .denySensitivity
                continue
            }
            return .permit
        }
        return result
    }
}
