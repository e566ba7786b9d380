/// A request to grant permissions, as the decision function sees it (built from a verified
/// `writePermission`).
public struct GrantRequest: Sendable, Hashable {
    /// Who grants.
    public var grantor: CsiGuid
    /// Who receives (one permission each).
    public var grantees: [CsiGuid]
    /// The requested scope.
    public var scope: PermissionScope
    /// The requested window.
    public var window: TimeWindow
    /// Whose data. Nil: a wallet's own data when the grantor is a wallet; otherwise every
    /// wallet whose permission covers the request if ``allowsImplicitPatients`` (the legacy
    /// behaviour, compat mode), else the grant is refused (``PermissionDenial/patientNotNamed``).
    public var patient: CsiGuid?
    /// Whether a grantor that is not a wallet may leave ``patient`` out and pass on the data of
    /// every patient it holds a covering permission from (compat mode only).
    public var allowsImplicitPatients: Bool
    /// Whether `scope.access` was covered by the signature. When not (a legacy payload, §1.10
    /// item 10) the grant is read only, whatever `accessType` says.
    public var accessIsSigned: Bool

    /// Creates a request.
    public init(grantor: CsiGuid, grantees: [CsiGuid], scope: PermissionScope, window: TimeWindow, patient: CsiGuid? = nil, accessIsSigned: Bool = true,
                allowsImplicitPatients: Bool = false) {
        self.grantor = grantor
        self.grantees = grantees
        self.scope = scope
        self.window = window
        self.patient = patient
        self.accessIsSigned = accessIsSigned
        self.allowsImplicitPatients = allowsImplicitPatients
    }

    /// Builds the request from a `writePermission` body whose signature verified with `quirks`;
    /// `mode` decides whether a grantor that is not a wallet may leave the patient out.
    public init(_ request: WritePermissionRequest, quirks: [CompatQuirk], mode: ProtocolMode = .strict) throws(SMOACError) {
        guard let grantor = request.envelope.caller else { throw .malformedRequest("writePermission: bad csiGuid") }
        var grantees: [CsiGuid] = []
        var seen = Set<CsiGuid>()   // linear de-duplication, however many grantees are sent
        for text in request.permission.grantees {
            guard let grantee = CsiGuid(text) else { throw .malformedRequest("writePermission: a grantee is not a UUID") }
            if seen.insert(grantee).inserted { grantees.append(grantee) }
        }
        guard let start = Timestamp(wireText: request.permission.startTime), let end = Timestamp(wireText: request.permission.endTime) else {
            throw .malformedRequest("writePermission: bad startTime or endTime")
        }
        var patient: CsiGuid?
        if let text = request.permission.patientCsiGuid {
            guard let named = CsiGuid(text) else { throw .malformedRequest("writePermission: patientCsiGuid is not a UUID") }
            patient = named
        }
        self.init(grantor: grantor, grantees: grantees, scope: try PermissionScope(heartScope: request.permission.heartScope),
                  window: TimeWindow(notBefore: start, notAfter: end), patient: patient,
                  accessIsSigned: !quirks.contains(.unsignedAccessType), allowsImplicitPatients: mode == .compat)
    }
}
