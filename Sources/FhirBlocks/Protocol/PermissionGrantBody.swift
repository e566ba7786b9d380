import ExactJSON

/// The `permission` member of `writePermission` (§1.4).
///
/// Grantees come either as `permissionedCsiGuids` (array: SDK README, older app) or as
/// `permissionedCsiGuid` (one string: newer app, §1.10 item 3); never both.
public struct PermissionGrantBody: Sendable, Hashable {
    /// Start of validity, wire dateTime (inclusive).
    public var startTime: String
    /// End of validity, wire dateTime (exclusive).
    public var endTime: String
    /// The client's own timestamp (unsigned, informational).
    public var timeStamp: String?
    /// The grantees as sent in the array form.
    public var permissionedCsiGuids: [String]?
    /// The grantee as sent in the single-string form.
    public var permissionedCsiGuid: String?
    /// The scope.
    public var heartScope: HeartScope
    /// Whose data is passed on (extension member): the patient's wallet csiGuid. Absent, a
    /// wallet grants its own data; in strict mode anyone else must name the patient. It is
    /// signed (the strict payload only).
    public var patientCsiGuid: String?

    /// Creates a body with the array form.
    public init(startTime: String, endTime: String, timeStamp: String? = nil, grantees: [String], heartScope: HeartScope,
                patientCsiGuid: String? = nil) {
        self.startTime = startTime
        self.endTime = endTime
        self.timeStamp = timeStamp
        self.permissionedCsiGuids = grantees
        self.permissionedCsiGuid = nil
        self.heartScope = heartScope
        self.patientCsiGuid = patientCsiGuid
    }

    /// The grantees in order, whichever form carried them.
    public var grantees: [String] {
        if let permissionedCsiGuids { return permissionedCsiGuids }
        return permissionedCsiGuid.map { [$0] } ?? []
    }

    init(fields: JSONFields) throws(SMOACError) {
        startTime = try fields.string("startTime")
        endTime = try fields.string("endTime")
        for (name, value) in [("startTime", startTime), ("endTime", endTime)] where Timestamp(wireText: value) == nil {
            throw .malformedRequest("\(fields.context): \"\(name)\" is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        }
        timeStamp = try fields.optionalString("timeStamp")
        permissionedCsiGuids = try fields.optionalStringArray("permissionedCsiGuids")
        permissionedCsiGuid = try fields.optionalString("permissionedCsiGuid")
        if permissionedCsiGuids != nil && permissionedCsiGuid != nil {
            throw .malformedRequest("\(fields.context): send either \"permissionedCsiGuids\" or \"permissionedCsiGuid\", not both")
        }
        if permissionedCsiGuids == nil && permissionedCsiGuid == nil {
            throw .malformedRequest("\(fields.context): \"permissionedCsiGuids\" is missing")
        }
        heartScope = try HeartScope(fields: try fields.fields("heartScope"))
        patientCsiGuid = try fields.optionalString("patientCsiGuid")
        if let patientCsiGuid, CsiGuid(patientCsiGuid) == nil {
            throw .malformedRequest("\(fields.context): \"patientCsiGuid\" is not a 36-character UUID")
        }
        guard !grantees.isEmpty else { throw .malformedRequest("\(fields.context): no grantee") }
        for grantee in grantees where CsiGuid(grantee) == nil {
            throw .malformedRequest("\(fields.context): a grantee is not a 36-character UUID")
        }
    }

    var json: JSONValue {
        var object = JSONObject()
        object.append("startTime", startTime)
        object.append("endTime", endTime)
        object.append("timeStamp", ifPresent: timeStamp)
        if let permissionedCsiGuids { object.append("permissionedCsiGuids", strings: permissionedCsiGuids) }
        object.append("permissionedCsiGuid", ifPresent: permissionedCsiGuid)
        object.append("heartScope", heartScope.json)
        object.append("patientCsiGuid", ifPresent: patientCsiGuid)
        return .object(object)
    }
}
