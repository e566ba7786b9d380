/// The permission graph as a value, with the decision functions of §1.8: who may grant what,
/// what a holder holds at an instant, and revocation.
///
/// The ledger is pure: the server loads the permissions relevant to a decision (the grantor's
/// and their ancestors, or the token's and their ancestors) from storage, asks the ledger, and
/// stores what it returns. Every check walks the whole chain up to the wallet's own grant, so a
/// revoked or expired edge anywhere above disables everything delegated from it.
public struct PermissionLedger: Sendable {
    /// The permissions by identifier.
    public private(set) var permissions: [PermissionID: Permission]
    /// The csiGuids that are wallets (a wallet is the patient of its own data).
    public var wallets: Set<CsiGuid>
    /// The longest delegation chain followed (wallet → app → provider is 2).
    public var maximumChainDepth: Int
    /// The csiGuids the server lists as auditors: each holds ``PermissionScope/auditor`` over
    /// itself (a token for `system/AuditEvent.rs` reads every audit entry).
    public var auditors: Set<CsiGuid>

    /// Creates a ledger.
    public init(wallets: Set<CsiGuid>, permissions: [Permission] = [], maximumChainDepth: Int = 8, auditors: Set<CsiGuid> = []) {
        self.auditors = auditors
        self.wallets = wallets
        self.permissions = Dictionary(permissions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.maximumChainDepth = maximumChainDepth
    }

    // MARK: Changes

    /// Adds (or replaces) a permission.
    public mutating func insert(_ permission: Permission) {
        permissions[permission.id] = permission
    }

    /// Revokes every unrevoked permission from `grantor` to `grantee` (`deletePermission`) at
    /// `instant`; returns their identifiers, sorted. Permissions delegated from them stop
    /// working through the chain check; they are not rewritten.
    public mutating func revoke(grantor: CsiGuid, grantee: CsiGuid, at instant: Timestamp) -> [PermissionID] {
        var revoked: [PermissionID] = []
        for (id, permission) in permissions where permission.grantor == grantor && permission.grantee == grantee && permission.revokedAt == nil {
            permissions[id]?.revokedAt = instant
            revoked.append(id)
        }
        return revoked.sorted()
    }

    /// Revokes one permission; false if it does not exist or was already revoked.
    public mutating func revoke(_ id: PermissionID, at instant: Timestamp) -> Bool {
        guard let permission = permissions[id], permission.revokedAt == nil else { return false }
        permissions[id]?.revokedAt = instant
        return true
    }

    // MARK: Queries

    /// The permissions `csi` granted, oldest first.
    public func granted(by csi: CsiGuid) -> [Permission] {
        permissions.values.filter { $0.grantor == csi }.sorted { ($0.grantedAt, $0.id) < ($1.grantedAt, $1.id) }
    }

    /// The permissions granted to `csi`, oldest first.
    public func given(to csi: CsiGuid) -> [Permission] {
        permissions.values.filter { $0.grantee == csi }.sorted { ($0.grantedAt, $0.id) < ($1.grantedAt, $1.id) }
    }

    /// The permission in force at `instant`, after checking it and every permission above it:
    /// not revoked, inside its window, each edge granted by the holder of the edge above, each
    /// scope and window inside the one above, and the top granted by a wallet about itself.
    public func effective(_ id: PermissionID, at instant: Timestamp) throws(PermissionDenial) -> HeldPermission {
        guard let permission = permissions[id] else { throw .unknownPermission(id) }
        var chain: [PermissionID] = []
        var current = permission
        while true {
            chain.append(current.id)
            guard chain.count <= maximumChainDepth else { throw .brokenChain(id) }
            if current.isRevoked(at: instant) { throw .revoked(current.id) }
            guard current.window.contains(instant) else { throw .outsideTimeWindow }
            guard current.patient == permission.patient, current.grantor != current.grantee else { throw .brokenChain(id) }
            guard let parentID = current.parent else {
                guard current.grantor == current.patient, wallets.contains(current.patient) else { throw .brokenChain(id) }
                break
            }
            guard let parent = permissions[parentID], !chain.contains(parentID), parent.grantee == current.grantor,
                  current.scope.isSubset(of: parent.scope), current.window.isWithin(parent.window) else {
                throw .brokenChain(id)
            }
            current = parent
        }
        return HeldPermission(patient: permission.patient, holder: permission.grantee, scope: permission.scope,
                              window: permission.window, permissionID: id, chain: chain)
    }

    /// Everything `csi` holds at `instant`: for a wallet, its ownership of its own data, plus
    /// every permission granted to `csi` that is in force (optionally only from `patient`).
    public func held(by csi: CsiGuid, patient: CsiGuid? = nil, at instant: Timestamp) -> [HeldPermission] {
        var result: [HeldPermission] = []
        if wallets.contains(csi), patient == nil || patient == csi {
            result.append(HeldPermission(patient: csi, holder: csi, scope: .owner, window: .always, permissionID: nil, chain: []))
        }
        if auditors.contains(csi), patient == nil || patient == csi {
            result.append(HeldPermission(patient: csi, holder: csi, scope: .auditor, window: .always, permissionID: nil, chain: []))
        }
        for permission in given(to: csi) where patient == nil || permission.patient == patient {
            if let held = try? effective(permission.id, at: instant) { result.append(held) }
        }
        return result
    }

    // MARK: Decisions

    /// May `request.grantor` grant this? Returns one authorization per (grantee, patient): a
    /// wallet may grant anything about its own data; anyone else only a subset of a permission
    /// in force that they hold, inside its window (§1.8). Throws the reason otherwise.
    ///
    /// Whose data: the patient the request names; else a wallet's own data (a caregiver's
    /// wallet granting to its app never passes on the patients it cares for); else, for other
    /// grantors, every patient they hold a covering permission from only when the request
    /// allows it (compat), and ``PermissionDenial/patientNotNamed`` otherwise.
    public func authorizeGrant(_ request: GrantRequest, at now: Timestamp) throws(PermissionDenial) -> [GrantAuthorization] {
        guard !request.window.isEmpty, request.window.notAfter > now else { throw .invalidTimeWindow }
        guard !request.grantees.contains(request.grantor) else { throw .selfGrant }
        var patient = request.patient
        if patient == nil {
            if wallets.contains(request.grantor) {
                patient = request.grantor
            } else if !request.allowsImplicitPatients {
                throw .patientNotNamed
            }
        }

        // The auditor scope is the server's to give, never passed on.
        var candidates = held(by: request.grantor, patient: patient, at: now).filter { $0.scope != .auditor }
        var denial: PermissionDenial?
        if candidates.isEmpty {
            // Explain why nothing is held: a revoked or expired permission beats "none at all".
            for permission in given(to: request.grantor) where patient == nil || permission.patient == patient {
                do {
                    _ = try effective(permission.id, at: now)
                } catch {
                    if case .revoked = error { denial = error } else if denial == nil { denial = error }
                }
            }
            throw denial ?? .noPermissionHeld
        }
        // Prefer the wallet's own ownership, then the oldest permission.
        candidates.sort { ($0.permissionID == nil ? 0 : 1, $0.chain.count) < ($1.permissionID == nil ? 0 : 1, $1.chain.count) }

        var chosen: [CsiGuid: (HeldPermission, PermissionScope)] = [:]
        var patientsInOrder: [CsiGuid] = []
        for candidate in candidates where chosen[candidate.patient] == nil {
            var scope = request.scope
            if !request.accessIsSigned {
                // Unsigned accessType (a legacy payload): anyone on the path could have changed
                // it, so it grants read only, whatever it says.
                scope.access = AccessRights.v1Read
            }
            guard scope.isSubset(of: candidate.scope) else {
                if denial == nil || denial == .outsideTimeWindow { denial = .scopeEscalation }
                continue
            }
            guard request.window.isWithin(candidate.window) else {
                if denial == nil { denial = .outsideTimeWindow }
                continue
            }
            chosen[candidate.patient] = (candidate, scope)
            patientsInOrder.append(candidate.patient)
        }
        guard !patientsInOrder.isEmpty else { throw denial ?? .noPermissionHeld }

        var authorizations: [GrantAuthorization] = []
        for grantee in request.grantees {
            for patient in patientsInOrder {
                guard let (held, scope) = chosen[patient] else { continue }
                authorizations.append(GrantAuthorization(patient: patient, grantor: request.grantor, grantee: grantee,
                                                         scope: scope, window: request.window, parent: held.permissionID))
            }
        }
        return authorizations
    }

    /// What a token still allows at `instant` (§1.8 "tokens carry the permission ids and are
    /// re-checked"): each of the token's grants that is inside some permission of `permissionIDs`
    /// still in force for `client` and `patient`. A wallet's token over its own data carries no
    /// permission ids. An empty result means the token allows nothing any more.
    public func tokenGrants(_ grants: [PermissionScope], permissionIDs: [PermissionID], client: CsiGuid,
                            patient: CsiGuid, at instant: Timestamp) -> [PermissionScope] {
        var inForce: [PermissionScope] = []
        if client == patient, wallets.contains(client) { inForce.append(.owner) }
        if client == patient, auditors.contains(client) { inForce.append(.auditor) }
        for id in permissionIDs {
            guard let held = try? effective(id, at: instant), held.holder == client, held.patient == patient else { continue }
            inForce.append(held.scope)
        }
        return grants.filter { grant in inForce.contains { grant.isSubset(of: $0) } }
    }
}
