import ExactJSON
import FhirBlocks
import FhirBlocksStore
import HTTPTypes
import Hummingbird

/// The SMOAC endpoints of §1.4 (`util/*`, `csi/*`, `permission/*`, `vaca/*`, and the
/// `fetchPermissionsGivenByMe` and `util/getGUID` aliases), each registered once for GET and
/// once for POST, added at the root and again under `/smoac`, with their handlers. Each
/// route's endpoint, its compat quirks and whether it takes the method are settled when the
/// routes are built: a method the endpoint does not take answers 400 ``wrongMethod(_:)``; the
/// others call the endpoint's handler (``handler(_:)``). Given the ledger and token cache, the
/// committer with the audit log, the rate limits, and the parts of the store it reads itself
/// (``Store``).
struct SMOACController: RateLimitedEndpoints {
    /// The parts of the store the handlers read and write themselves (every other write goes
    /// through the committer): issued GUIDs and registrations (`LedgerStore`), a SMART
    /// authorization by its user code (`TokenStore`), a backend client named as a grantee
    /// (`BackendClientStore`), the replay cache of signed requests and assertions
    /// (`NonceStore`) and VACA's authorization codes (`AuthorizationCodeStore`).
    typealias Store = LedgerStore & TokenStore & BackendClientStore & NonceStore & AuthorizationCodeStore

    /// The store's parts the handlers read (``Store``).
    let store: any Store
    let trustLedger: TrustLedger
    let committer: ChangeCommitter
    let rateLimits: RateLimits

    init(store: any Store, trustLedger: TrustLedger, committer: ChangeCommitter, rateLimits: RateLimits) {
        self.store = store
        self.trustLedger = trustLedger
        self.committer = committer
        self.rateLimits = rateLimits
    }

    /// The controller over `service`'s components.
    init(service: TrustService) {
        self.init(store: service.store, trustLedger: service.trustLedger, committer: service.committer, rateLimits: service.rateLimits)
    }

    /// The assertions and tokens the VACA endpoints share with the OAuth token endpoint.
    var tokens: TokenIssuer { TokenIssuer(store: store, trustLedger: trustLedger, committer: committer, rateLimits: rateLimits) }

    /// The routes, to add at `/` and at `/smoac`.
    var routes: RouteCollection<FhirBlocksRequestContext> {
        let mode = configuration.mode
        let limit = configuration.maximumBodySize
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        let paths = SMOACEndpoint.allCases.map(\.path) + [SMOACEndpoint.givenByMeAliasPath, "util/getGUID"]
        for path in paths {
            // `util/getGUID` is getGloballyUniqueIdentifier's short name; the README's
            // `fetchPermissionsGivenByMe` is served in both modes (a quirk in compat mode).
            let resolved = SMOACEndpoint.resolve(path: path == "util/getGUID" ? SMOACEndpoint.getGloballyUniqueIdentifier.path : path, mode: mode)
                ?? Accepted(.fetchPermissionsPreviouslyGrantedByMe)
            let endpoint = resolved.value
            let handler = Self.handler(endpoint)
            for method in [HTTPRequest.Method.get, .post] {
                let accepted = endpoint.accepts(method: method.rawValue, mode: mode)
                let quirks = resolved.quirks + accepted.quirks
                routes.on(RouterPath(path), method: method) { request, context in
                    try await FhirBlocksRouter.handle(request, context: context, limit: limit) { request in
                        guard accepted.value else { return Self.wrongMethod(endpoint) }
                        return await answer(endpoint, body: request.body, quirks: quirks, handler: handler)
                    }
                }
            }
        }
        return routes
    }

    /// What answers one SMOAC endpoint: the controller, the request body and the compat quirks of
    /// how the endpoint was called. Chosen once per route when the router is built
    /// (``handler(_:)``), never per request.
    typealias Handler = @Sendable (SMOACController, [UInt8], [CompatQuirk]) async throws(SMOACError) -> ServiceResponse

    /// The handler of `endpoint`.
    static func handler(_ endpoint: SMOACEndpoint) -> Handler {
        switch endpoint {
        case .ping:
            return { (smoac, _, _) throws(SMOACError) in .message(PingResponse(version: smoac.configuration.version)) }
        case .getTime:
            return { (smoac, _, _) throws(SMOACError) in .message(TimeResponse(currentTime: smoac.now)) }
        case .getGloballyUniqueIdentifier:
            return { (smoac, _, _) throws(SMOACError) in try await smoac.issueGuid() }
        case .requestCsiRegistration:
            return { (smoac, body, quirks) throws(SMOACError) in try await smoac.register(body, quirks: quirks) }
        case .fetchPublicClaims:
            return { (smoac, body, quirks) throws(SMOACError) in try await smoac.fetchPublicClaims(body, quirks: quirks) }
        case .writePermission:
            return { (smoac, body, quirks) throws(SMOACError) in try await smoac.writePermission(body, quirks: quirks) }
        case .fetchPermissionsPreviouslyGrantedByMe:
            return { (smoac, body, quirks) throws(SMOACError) in
                try await smoac.listPermissions(FetchPermissionsGrantedByMeRequest.self, body: body, quirks: quirks, grantedByCaller: true)
            }
        case .fetchPermissionsGivenToMe:
            return { (smoac, body, quirks) throws(SMOACError) in
                try await smoac.listPermissions(FetchPermissionsGivenToMeRequest.self, body: body, quirks: quirks, grantedByCaller: false)
            }
        case .deletePermission:
            return { (smoac, body, quirks) throws(SMOACError) in try await smoac.deletePermission(body, quirks: quirks) }
        case .decideAuthorization:
            return { (smoac, body, quirks) throws(SMOACError) in try await smoac.decideAuthorization(body, quirks: quirks) }
        case .vacaAuth:
            return { (smoac, body, _) throws(SMOACError) in try await smoac.vacaAuth(body) }
        case .vacaAccess:
            return { (smoac, body, _) throws(SMOACError) in try await smoac.vacaAccess(body) }
        }
    }

    /// Answers a request to `endpoint` with its `handler`: the permission ledger is brought up
    /// to the store's first (except for `util/*`, which read none of it), and a refusal becomes
    /// its error response.
    func answer(_ endpoint: SMOACEndpoint, body: [UInt8], quirks: [CompatQuirk], handler: Handler) async -> ServiceResponse {
        do {
            if ![.ping, .getTime, .getGloballyUniqueIdentifier].contains(endpoint) { try await refreshLedger() }
            return try await handler(self, body, quirks)
        } catch {
            return .error(error)
        }
    }

    /// The answer to a SMOAC endpoint called with a method it does not take (400).
    static func wrongMethod(_ endpoint: SMOACEndpoint) -> ServiceResponse {
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
        // A grantee is a registered csi or a SMART Backend Services client (by its client_id).
        for grantee in grantRequest.grantees where registration(grantee) == nil {
            guard (try? await store.backendClient(grantee)) != nil else { throw .unknownTarget("a grantee is not registered") }
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

    func listPermissions<Request: SignedRequest>(_ type: Request.Type, body: [UInt8], quirks: [CompatQuirk],
                                                 grantedByCaller: Bool) async throws(SMOACError) -> ServiceResponse {
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
}
