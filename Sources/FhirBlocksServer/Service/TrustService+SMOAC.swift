import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The SMOAC endpoints of §1.4 (`util/*`, `csi/*`, `permission/*`).
extension TrustService {
    /// What answers one SMOAC endpoint: the service, the request body and the compat quirks of
    /// how the endpoint was called. Chosen once per route when the router is built
    /// (``smoacHandler(_:)``), never per request.
    typealias SMOACHandler = @Sendable (TrustService, [UInt8], [CompatQuirk]) async throws(SMOACError) -> ServiceResponse

    /// The handler of `endpoint`.
    static func smoacHandler(_ endpoint: SMOACEndpoint) -> SMOACHandler {
        switch endpoint {
        case .ping:
            return { (service, _, _) throws(SMOACError) in .message(PingResponse(version: service.configuration.version)) }
        case .getTime:
            return { (service, _, _) throws(SMOACError) in .message(TimeResponse(currentTime: service.now)) }
        case .getGloballyUniqueIdentifier:
            return { (service, _, _) throws(SMOACError) in try await service.issueGuid() }
        case .requestCsiRegistration:
            return { (service, body, quirks) throws(SMOACError) in try await service.register(body, quirks: quirks) }
        case .fetchPublicClaims:
            return { (service, body, quirks) throws(SMOACError) in try await service.fetchPublicClaims(body, quirks: quirks) }
        case .writePermission:
            return { (service, body, quirks) throws(SMOACError) in try await service.writePermission(body, quirks: quirks) }
        case .fetchPermissionsPreviouslyGrantedByMe:
            return { (service, body, quirks) throws(SMOACError) in
                try await service.listPermissions(FetchPermissionsGrantedByMeRequest.self, body: body, quirks: quirks, grantedByCaller: true)
            }
        case .fetchPermissionsGivenToMe:
            return { (service, body, quirks) throws(SMOACError) in
                try await service.listPermissions(FetchPermissionsGivenToMeRequest.self, body: body, quirks: quirks, grantedByCaller: false)
            }
        case .deletePermission:
            return { (service, body, quirks) throws(SMOACError) in try await service.deletePermission(body, quirks: quirks) }
        case .decideAuthorization:
            return { (service, body, quirks) throws(SMOACError) in try await service.decideAuthorization(body, quirks: quirks) }
        case .vacaAuth:
            return { (service, body, _) throws(SMOACError) in try await service.vacaAuth(body) }
        case .vacaAccess:
            return { (service, body, _) throws(SMOACError) in try await service.vacaAccess(body) }
        }
    }

    /// Answers a request to `endpoint` with its `handler`: the permission ledger is brought up
    /// to the store's first (except for `util/*`, which read none of it), and a refusal becomes
    /// its error response.
    func answerSMOAC(_ endpoint: SMOACEndpoint, body: [UInt8], quirks: [CompatQuirk], handler: SMOACHandler) async -> ServiceResponse {
        do {
            if ![.ping, .getTime, .getGloballyUniqueIdentifier].contains(endpoint) { try await refreshLedger() }
            return try await handler(self, body, quirks)
        } catch {
            return .error(error)
        }
    }

    /// The answer to a SMOAC endpoint called with a method it does not take (400).
    static func smoacWrongMethod(_ endpoint: SMOACEndpoint) -> ServiceResponse {
        .error(.malformedRequest("\(endpoint.path) takes \(endpoint.method)"))
    }

    // MARK: util

    func issueGuid() async throws(SMOACError) -> ServiceResponse {
        let guid = CsiGuid(randomBytes: random { generator in (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) } })
        let instant = now
        var change = TrustChange()
        change.issuedGuids = [IssuedGuid(guid: guid, issuedAt: instant)]
        // Unused GUIDs expire: each issue forgets the ones older than their lifetime.
        change.issuedGuidsExpiringBefore = instant.adding(seconds: -configuration.guidLifetimeSeconds)
        try await commit(change)
        return .message(GuidResponse(guid: guid))
    }

    // MARK: Signed requests

    /// Parses and authenticates a signed request: JSON shape, registered caller, signature,
    /// then `dateTime` and nonce. A refusal after the caller is known is audited.
    func authenticate<Request: SignedRequest>(_ type: Request.Type, body: [UInt8], quirks: [CompatQuirk]) async throws(SMOACError)
        -> (request: Request, caller: CsiRegistration, quirks: [CompatQuirk]) {
        let request = try Request(jsonBytes: body)
        guard let caller = request.envelope.caller else { throw .malformedRequest("\"csiGuid\" is not a 36-character UUID") }
        guard let registration = registration(caller) else {
            tallyUnverifiedRefusal(error: .unknownCsi)
            throw .unknownCsi
        }
        do {
            let signatureQuirks = try SignedRequestVerifier.verify(request, publicKey: registration.publicKey, mode: configuration.mode)
            try await ReplayGuard(policy: configuration.replayPolicy).check(request, now: now, store: store)
            try requireWithinRate(caller)
            return (request, registration, quirks + signatureQuirks)
        } catch .rateLimited(let retryAfter) {
            throw .rateLimited(retryAfterSeconds: retryAfter)
        } catch {
            tallyUnverifiedRefusal(error: error)
            throw error
        }
    }

    // MARK: csi

    func register(_ body: [UInt8], quirks: [CompatQuirk]) async throws(SMOACError) -> ServiceResponse {
        let request = try CsiRegistrationRequest(jsonBytes: body)
        guard let csi = request.envelope.caller else { throw .malformedRequest("\"csiGuid\" is not a 36-character UUID") }
        var allQuirks = quirks
        let key: CsiPublicKey
        do {
            let verified = try SignedRequestVerifier.verifyRegistration(request, mode: configuration.mode)
            key = verified.value
            allQuirks += verified.quirks
            try await ReplayGuard(policy: configuration.replayPolicy).check(request, now: now, store: store)
        } catch {
            tallyUnverifiedRefusal(.registration, error: error)
            throw error
        }
        if registration(csi) != nil {
            // A registration is signed by the key it brings: it proves nothing about who owns the csiGuid.
            tallyUnverifiedRefusal(.registration, error: .alreadyRegistered)
            throw .alreadyRegistered
        }
        let issued: Bool
        do {
            let notBefore = now.adding(seconds: -configuration.guidLifetimeSeconds)
            issued = try await store.issuedGuid(csi).map { $0.issuedAt >= notBefore } ?? false
        } catch {
            throw .storageFailure(error.description)
        }
        if !issued {
            // Strict: the GUID must come from util/getGloballyUniqueIdentifier (first-come binding
            // of a server-chosen GUID). Compat accepts a client-chosen one, as old servers did.
            guard configuration.mode == .compat else {
                let error = SMOACError.malformedRequest("csiGuid was not issued by util/getGloballyUniqueIdentifier, or has expired (ask for a new one)")
                tallyUnverifiedRefusal(.registration, error: error)
                throw error
            }
        }
        let registration = CsiRegistration(csiGuid: csi, publicKey: key, deviceId: request.deviceId, applicationClass: request.applicationClass,
                                           claims: request.publicClaims, registeredAt: now)
        var change = TrustChange()
        change.registrations = [registration]
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .registration, recorded: now, agent: csi.rawValue,
                                                                   patient: registration.isWallet ? csi.rawValue : nil,
                                                                   quirks: allQuirks.sortedUnique, requestHash: Self.hexSHA256(body)),
                                                 signatureDigest: Self.signatureDigest(request.envelope.signature))]
        try await commit(change)
        return .message(GuidResponse(guid: csi))
    }

    func fetchPublicClaims(_ body: [UInt8], quirks: [CompatQuirk]) async throws(SMOACError) -> ServiceResponse {
        let (request, caller, allQuirks) = try await authenticate(FetchPublicClaimsRequest.self, body: body, quirks: quirks)
        guard let target = request.target else { throw .malformedRequest("\"desiredCsiGuid\" is not a 36-character UUID") }
        guard let targetRegistration = registration(target) else { throw .unknownTarget("no such csiGuid") }
        // Claims are released to the csi itself, to a holder of a permission in force that
        // comes from the target (the target is its patient or granted it), and, for an app
        // target, to whoever holds a permission in force that the app passed on. Granting to a
        // wallet does not open that wallet's claims, and a revoked or expired link opens nothing.
        let ledger = self.ledger
        let instant = now
        func grantor(of held: HeldPermission) -> CsiGuid? { held.permissionID.flatMap { ledger.permissions[$0]?.grantor } }
        let linked = target == caller.csiGuid
            || ledger.held(by: caller.csiGuid, at: instant).contains { $0.permissionID != nil && ($0.patient == target || grantor(of: $0) == target) }
            || (!targetRegistration.isWallet && ledger.held(by: target, at: instant).contains { grantor(of: $0) == caller.csiGuid })
        guard linked else {
            await auditFailure(.publicClaimsRead, agent: caller.csiGuid.rawValue, error: .notPermitted("no permission links the caller and the target"),
                               quirks: allQuirks, body: body)
            throw .notPermitted("no permission links the caller and the target")
        }
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .publicClaimsRead, recorded: now, agent: caller.csiGuid.rawValue,
                                                                   patient: targetRegistration.isWallet ? target.rawValue : nil,
                                                                   otherAgents: [target.rawValue], quirks: allQuirks.sortedUnique,
                                                                   requestHash: Self.hexSHA256(body)),
                                                 signatureDigest: Self.signatureDigest(request.envelope.signature))]
        let stored: CsiRegistration?
        do {
            stored = try await store.registration(target)
        } catch {
            throw .storageFailure(error.description)
        }
        guard let claims = stored?.claims else { throw .unknownTarget("no such csiGuid") }
        try await commit(change)
        return .message(PublicClaimsResponse(claims: claims))
    }

    // MARK: permission

    func writePermission(_ body: [UInt8], quirks: [CompatQuirk]) async throws(SMOACError) -> ServiceResponse {
        let (request, caller, verifiedQuirks) = try await authenticate(WritePermissionRequest.self, body: body, quirks: quirks)
        let grantRequest = try GrantRequest(request, quirks: verifiedQuirks, mode: configuration.mode)
        var allQuirks = verifiedQuirks
        if grantRequest.allowsImplicitPatients, grantRequest.patient == nil, !ledger.wallets.contains(caller.csiGuid) {
            allQuirks.append(.implicitPatients)
        }
        for grantee in grantRequest.grantees where registration(grantee) == nil {
            throw .unknownTarget("a grantee is not registered")
        }
        let instant = now
        let authorizations: [GrantAuthorization]
        do {
            authorizations = try ledger.authorizeGrant(grantRequest, at: instant)
        } catch {
            await auditFailure(.permissionGrant, agent: caller.csiGuid.rawValue, error: error.smoacError, quirks: allQuirks, body: body)
            throw error.smoacError
        }
        var change = TrustChange()
        let digest = Self.signatureDigest(request.envelope.signature)
        for authorization in authorizations {
            let permission = Permission(id: random { PermissionID.random(using: &$0) }, authorization: authorization, grantedAt: instant)
            change.permissions.append(permission)
            change.auditEntries.append(PendingAuditEntry(entry: AuditEntry(
                type: .permissionGrant, recorded: instant, agent: caller.csiGuid.rawValue, patient: permission.patient.rawValue,
                otherAgents: [permission.grantee.rawValue], permissionIDs: [permission.id.rawValue] + (permission.parent.map { [$0.rawValue] } ?? []),
                scope: permission.scope.description, quirks: allQuirks.sortedUnique, requestHash: Self.hexSHA256(body)), signatureDigest: digest))
        }
        try await commit(change)
        return .message(WritePermissionResponse(permissionIds: change.permissions.map(\.id.rawValue)))
    }

    func listPermissions<Request: SignedRequest>(_ type: Request.Type, body: [UInt8], quirks: [CompatQuirk], grantedByCaller: Bool) async throws(SMOACError) -> ServiceResponse {
        let (request, caller, allQuirks) = try await authenticate(type, body: body, quirks: quirks)
        let instant = now
        let ledger = self.ledger
        let permissions = grantedByCaller ? ledger.granted(by: caller.csiGuid) : ledger.given(to: caller.csiGuid)
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .permissionsListed, recorded: instant, agent: caller.csiGuid.rawValue,
                                                                   permissionIDs: permissions.map(\.id.rawValue), quirks: allQuirks.sortedUnique,
                                                                   requestHash: Self.hexSHA256(body)),
                                                 signatureDigest: Self.signatureDigest(request.envelope.signature))]
        try await commit(change)
        return .message(PermissionsResponse(permissions: permissions.map { $0.record(at: instant) }))
    }

    func deletePermission(_ body: [UInt8], quirks: [CompatQuirk]) async throws(SMOACError) -> ServiceResponse {
        let (request, caller, allQuirks) = try await authenticate(DeletePermissionRequest.self, body: body, quirks: quirks)
        guard let grantee = request.grantee else { throw .malformedRequest("\"permissionedGuidBeingDeleted\" is not a 36-character UUID") }
        let instant = now
        var copy = ledger
        let revoked = copy.revoke(grantor: caller.csiGuid, grantee: grantee, at: instant)
        guard !revoked.isEmpty else { throw .unknownTarget("no active permission from the caller to that grantee") }
        var change = TrustChange()
        change.revocations = revoked.map { PermissionRevocation(id: $0, revokedAt: instant) }
        let patients = Set(revoked.compactMap { copy.permissions[$0]?.patient.rawValue }).sorted()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .permissionRevoke, recorded: instant, agent: caller.csiGuid.rawValue,
                                                                   patient: patients.count == 1 ? patients[0] : nil, otherAgents: [grantee.rawValue],
                                                                   permissionIDs: revoked.map(\.rawValue), quirks: allQuirks.sortedUnique,
                                                                   requestHash: Self.hexSHA256(body)),
                                                 signatureDigest: Self.signatureDigest(request.envelope.signature))]
        try await commit(change)
        return .message(DeletePermissionResponse(revokedPermissionIds: revoked.map(\.rawValue)))
    }

    /// Lowercase hex SHA-256 of the signature's base64 text as sent (what `audit/validate`
    /// looks up).
    static func signatureDigest(_ signature: String) -> String {
        hexSHA256(Array(signature.utf8))
    }
}
