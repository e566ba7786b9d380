import FhirBlocks

extension PermissionScope {
    /// The scope as one line for a database column:
    /// `<permissionType>|<resource>|<cruds>|<ceiling>|<sensitivities>` where sensitivities are
    /// comma-separated sorted codes, `*` for the unrestricted set, or empty for none; a
    /// granular scope's `filter` follows as a sixth part (`|category=laboratory`,
    /// which may hold `|` itself).
    public var storageText: String {
        let sensitivityText = sensitivities.isUnrestricted ? "*" : sensitivities.sortedCodes.map(\.rawValue).joined(separator: ",")
        return ([permissionType.rawValue, resource.description, access.description, confidentialityCeiling.rawValue, sensitivityText]
                + (filter.map { [$0.description] } ?? []))
            .joined(separator: "|")
    }

    /// Reads ``storageText`` back.
    public init(storageText text: String) throws(TrustStoreError) {
        let parts = text.split(separator: "|", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
        var filter: ScopeFilter?
        if parts.count == 6 {
            guard let parsed = ScopeFilter(parts[5]) else { throw .corrupt("permission scope filter") }
            filter = parsed
        }
        guard parts.count == 5 || parts.count == 6, let type = PermissionType(rawValue: parts[0]), let resource = ResourceScope(parts[1]),
              let access = AccessRights(scopeSuffix: parts[2]), let ceiling = ConfidentialityLevel(rawValue: parts[3]) else {
            throw .corrupt("permission scope")
        }
        let sensitivities: SensitivitySet
        if parts[4] == "*" {
            sensitivities = .all
        } else {
            var codes: Set<SensitivityCode> = []
            for code in parts[4].split(separator: ",") {
                guard let parsed = SensitivityCode(String(code)) else { throw .corrupt("permission scope sensitivity") }
                codes.insert(parsed)
            }
            sensitivities = SensitivitySet(codes)
        }
        self.init(permissionType: type, resource: resource, access: access, confidentialityCeiling: ceiling, sensitivities: sensitivities,
                  filter: filter)
    }
}
