extension WritePermissionRequest {
    /// Legacy (§1.4, Appendix A):
    /// `|<endTime>|<startTime>|<grantee>…|<permissionType>|<confidentialityScope>|<sensitivity>…|<resourceScope>|<csiGuid>|<dateTime>|<nonce>|`
    /// (`accessType` and `timeStamp` unsigned). Strict: `|permission/writePermission|` + the same
    /// fields with `<accessType>` inserted before `<csiGuid>`.
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        let scope = permission.heartScope
        let head = [permission.endTime, permission.startTime] + permission.grantees
            + [scope.permissionType, scope.confidentialityScope] + scope.sensitivityScope + [scope.resourceScope]
        let tail = [envelope.csiGuid, envelope.dateTime, envelope.nonce]
        var payloads: [SignedPayload] = []
        if let accessType = scope.accessType {
            payloads.append(SignedPayload(fields: [endpoint.path] + head + [accessType] + tail))
        }
        if mode == .compat {
            payloads.append(SignedPayload(fields: head + tail, quirks: [.legacySignedPayload, .unsignedAccessType]))
        }
        return payloads
    }
}
