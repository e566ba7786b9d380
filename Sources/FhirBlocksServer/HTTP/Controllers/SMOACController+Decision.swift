import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The wallet's side of SMART standalone launch: `permission/decideAuthorization`, a signed
/// request naming the user code the app's authorization page shows.
extension SMOACController {
    /// The scopes that are not resource or label scopes but are granted when asked for and
    /// chosen: the standalone patient context and refresh tokens.
    static let launchScopes = ["launch/patient", "offline_access"]

    /// Approves (requested ∩ chosen scopes, for the chosen window, as permissions from the
    /// wallet to the app that the ledger enforces like any other) or declines. Refused: not a
    /// wallet (403), a code that is unknown, expired or already decided, by this wallet or by
    /// another (404, one answer for all of them), nothing of the requested scope chosen (400);
    /// naming codes that do not wait faster than ``ServerConfiguration/decisionGuessRate`` per
    /// wallet or per address, or faster than ``RateLimits/totalGuessRate(_:)`` from everyone (429).
    /// Decisions are audited; refusals are counted (``RefusalTally``): wallets register
    /// themselves, so an entry per refusal would let anyone grow the log.
    func decideAuthorization(_ body: [UInt8], quirks: [CompatQuirk]) async throws(SMOACError) -> ServiceResponse {
        let (request, caller, allQuirks) = try await authenticate(DecideAuthorizationRequest.self, body: body, quirks: quirks)
        let wallet = caller.csiGuid
        let digest = Self.signatureDigest(request.envelope.signature)
        func refused(_ error: SMOACError) -> SMOACError {
            tallyUnverifiedRefusal(.authorizationDecided, error: error)
            return error
        }
        guard ledger.wallets.contains(wallet) else { throw refused(.notPermitted("only a wallet decides an authorization")) }
        let unknown = SMOACError.unknownTarget("unknown, expired or already decided code")
        guard let decision = request.typedDecision else { throw refused(.malformedRequest("\"decision\" must be approve or decline")) }
        var found: SmartAuthorization?
        if let userCode = UserCode.normalize(request.userCode) {
            do {
                found = try await store.smartAuthorization(userCode: userCode)
            } catch {
                throw .storageFailure(error.description)
            }
        }
        let instant = now
        guard let authorization = found, authorization.status == .pending, instant < authorization.expiresAt else {
            // Naming codes that do not wait is how codes are guessed: slowly only, per wallet
            // (wallets are free), per address, and from everyone together.
            for (limiter, key) in [(rateLimits.decisionGuess, "wallet " + wallet.rawValue), (rateLimits.decisionGuess, "address " + ClientAddress.current),
                                   (rateLimits.decisionGuessTotal, "all")] {
                if let retryAfter = limiter.take(key, now: instant) {
                    metrics.rateLimited(kind: "decision")
                    throw .rateLimited(retryAfterSeconds: retryAfter)
                }
            }
            // Decided (by anyone), expired and unknown codes get the same answer.
            throw refused(unknown)
        }
        var updated = authorization
        updated.patient = wallet
        var change = TrustChange()
        var response = AuthorizationDecisionResponse(status: "declined")
        switch decision {
        case .decline:
            updated.status = .declined
        case .approve:
            let end = request.end ?? instant.adding(seconds: configuration.defaultApprovalSeconds)
            guard instant < end else { throw refused(.malformedRequest("endTime must be in the future")) }
            let granted = grantedScope(requested: authorization.requestedScope, chosen: request.scope.isEmpty ? nil : request.scope)
            guard !granted.isEmpty else { throw refused(.invalidScope("nothing of the requested scope was chosen")) }
            let window = TimeWindow(notBefore: instant, notAfter: end)
            let permissions = granted.grants.map { scope in
                Permission(id: random { PermissionID.random(using: &$0) }, patient: wallet, grantor: wallet, grantee: authorization.client,
                           scope: scope, window: window, parent: nil, grantedAt: instant)
            }
            change.permissions = permissions
            for permission in permissions {
                change.auditEntries.append(PendingAuditEntry(entry: AuditEntry(
                    type: .permissionGrant, recorded: instant, agent: wallet.rawValue, patient: wallet.rawValue, otherAgents: [authorization.client.rawValue],
                    permissionIDs: [permission.id.rawValue], scope: permission.scope.description, quirks: allQuirks.sortedUnique,
                    requestHash: Self.hexSHA256(body)), signatureDigest: digest))
            }
            updated.status = .approved
            updated.grantedScope = granted
            updated.permissionIDs = permissions.map(\.id)
            updated.offline = granted.scopes.contains(.other("offline_access"))
            response = AuthorizationDecisionResponse(status: "approved", scope: granted.text, endTime: end.wireText,
                                                     permissionIds: permissions.map(\.id.rawValue))
        }
        change.smartAuthorizations = [SmartAuthorizationWrite(updated, expecting: .pending)]
        change.auditEntries.append(PendingAuditEntry(entry: AuditEntry(
            type: .authorizationDecided, recorded: instant, agent: wallet.rawValue, patient: wallet.rawValue, otherAgents: [authorization.client.rawValue],
            permissionIDs: updated.permissionIDs.map(\.rawValue), tokenID: String(authorization.id.prefix(16)), scope: updated.grantedScope?.text,
            quirks: allQuirks.sortedUnique, requestHash: Self.hexSHA256(body), reason: decision == .approve ? nil : "declined"),
            signatureDigest: digest))
        do {
            try await storeCommit(change)
        } catch .conflict {
            throw refused(unknown)
        } catch {
            logger.error("store commit failed", metadata: ["reason": "\(error.description)"])
            throw .storageFailure("the decision could not be stored")
        }
        return .message(response)
    }

    /// Requested ∩ chosen (all requested when `chosen` is nil): the resource and label scopes
    /// through the same intersection as every grant (§2.5), plus `launch/patient` and
    /// `offline_access` when both ask for them.
    func grantedScope(requested: String, chosen: String?) -> GrantedScope {
        let policy = configuration.labelPolicy
        let request = ScopeRequest(requested)
        let allowed = chosen.map { ScopeRequest($0).grant(held: [.owner], policy: policy).grants } ?? [.owner]
        var granted = request.grant(held: allowed, policy: policy)
        guard !granted.isEmpty else { return granted }
        let chosenScopes = chosen.map { Set(ScopeRequest($0).scopes) }
        for name in Self.launchScopes where request.scopes.contains(.other(name)) && (chosenScopes?.contains(.other(name)) ?? true) {
            granted.scopes.append(.other(name))
            granted.dropped.removeAll { $0 == name }
        }
        return granted
    }
}
