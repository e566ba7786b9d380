extension WritePermissionRequest {
    /// Legacy (§1.4, Appendix A):
    /// `|<endTime>|<startTime>|<grantee>…|<permissionType>|<confidentialityScope>|<sensitivity>…|<resourceScope>|<csiGuid>|<dateTime>|<nonce>|`
    /// (`accessType` and `timeStamp` unsigned). Strict: `|permission/writePermission|` + the same
    /// fields with `<accessType>` inserted before `<csiGuid>`, and, when the body names the
    /// patient, `patient:<patientCsiGuid>` right after `<accessType>`. A body naming the patient
    /// has no legacy payload (legacy clients never send it, and it must be signed).
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        let scope = permission.heartScope
        let head = [permission.endTime, permission.startTime] + permission.grantees
            + [scope.permissionType, scope.confidentialityScope] + scope.sensitivityScope + [scope.resourceScope]
        let tail = [envelope.csiGuid, envelope.dateTime, envelope.nonce]
        var payloads: [SignedPayload] = []
        if let accessType = scope.accessType {
            let patient = permission.patientCsiGuid.map { ["patient:" + $0] } ?? []
            payloads.append(SignedPayload(fields: [endpoint.path] + head + [accessType] + patient + tail))
        }
        if mode == .compat, permission.patientCsiGuid == nil {
            payloads.append(SignedPayload(fields: head + tail, quirks: [.legacySignedPayload, .unsignedAccessType]))
        }
        return payloads
    }
}
