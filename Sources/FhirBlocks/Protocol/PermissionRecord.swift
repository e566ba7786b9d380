import ExactJSON

/// One entry of `fetchPermissionsPreviouslyGrantedByMe` / `fetchPermissionsGivenToMe`:
/// `grantingCsiGuid`, `permissionedCsiGuids`, `startTime`, `endTime` and `heartScope` as the
/// clients read them (§1.8), plus this server's `permissionId` and `status`.
public struct PermissionRecord: Sendable, Hashable {
    /// The stable identifier of the permission (extension member).
    public var permissionId: String?
    /// The granter.
    public var grantingCsiGuid: String
    /// The grantees (one per record on this server).
    public var permissionedCsiGuids: [String]
    /// Start of validity.
    public var startTime: String
    /// End of validity.
    public var endTime: String
    /// The scope.
    public var heartScope: HeartScope?
    /// `active` or `revoked` (extension member).
    public var status: String?
    /// Whose data the permission is about: the patient's wallet csiGuid (extension member).
    public var patientCsiGuid: String?

    /// Creates a record.
    public init(permissionId: String?, grantingCsiGuid: String, permissionedCsiGuids: [String], startTime: String,
                endTime: String, heartScope: HeartScope?, status: String?, patientCsiGuid: String? = nil) {
        self.permissionId = permissionId
        self.grantingCsiGuid = grantingCsiGuid
        self.permissionedCsiGuids = permissionedCsiGuids
        self.startTime = startTime
        self.endTime = endTime
        self.heartScope = heartScope
        self.status = status
        self.patientCsiGuid = patientCsiGuid
    }

    init(json: JSONValue, context: String) throws(SMOACError) {
        let fields = try JSONFields(json, context: context)
        permissionId = try fields.optionalString("permissionId")
        grantingCsiGuid = try fields.string("grantingCsiGuid")
        permissionedCsiGuids = try fields.optionalStringArray("permissionedCsiGuids") ?? []
        startTime = try fields.string("startTime")
        endTime = try fields.string("endTime")
        heartScope = fields.has("heartScope") ? try HeartScope(fields: try fields.fields("heartScope")) : nil
        status = try fields.optionalString("status")
        patientCsiGuid = try fields.optionalString("patientCsiGuid")
    }

    var json: JSONValue {
        var object = JSONObject()
        object.append("permissionId", ifPresent: permissionId)
        object.append("grantingCsiGuid", grantingCsiGuid)
        object.append("permissionedCsiGuids", strings: permissionedCsiGuids)
        object.append("startTime", startTime)
        object.append("endTime", endTime)
        if let heartScope { object.append("heartScope", heartScope.json) }
        object.append("status", ifPresent: status)
        object.append("patientCsiGuid", ifPresent: patientCsiGuid)
        return .object(object)
    }
}
