import FhirBlocks
import FhirBlocksStore

/// VACA (`vaca/auth`, `vaca/access`, §1.4/§1.8): an authorization code for a verified
/// assertion, and the code redeemed for an access token (``TokenIssuer``).
extension SMOACController {
    func vacaAuth(_ body: [UInt8]) async throws(SMOACError) -> ServiceResponse {
        let parsed = try VacaAuthRequest.parse(body, mode: configuration.mode)
        let verified = try await tokens.verifyAssertion(parsed.value.assertion, purpose: .authorizationGrant, body: body, quirks: parsed.quirks)
        let instant = now
        let code: AuthorizationCode
        do {
            code = try random { generator throws(SMOACError) in
                try tokens.authorizer.issueCode(for: verified, requestedScope: parsed.value.scope, patient: parsed.value.patient.flatMap(CsiGuid.init),
                                         ledger: ledger, now: instant, using: &generator)
            }
        } catch {
            await auditFailure(.codeIssued, agent: verified.issuer.rawValue, error: error, quirks: parsed.quirks + verified.quirks, body: body)
            throw error
        }
        do {
            try await store.put(code)
        } catch {
            throw .storageFailure(error.description)
        }
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .codeIssued, recorded: instant, agent: code.client.rawValue,
                                                                   patient: code.patient.rawValue, permissionIDs: code.permissionIDs.map(\.rawValue),
                                                                   tokenID: AuditDigest.identifier(of: code.code), scope: code.scope.text,
                                                                   quirks: (parsed.quirks + verified.quirks).sortedUnique,
                                                                   requestHash: Self.hexSHA256(body)))]
        try await commit(change)
        return .message(code.response(at: instant))
    }

    func vacaAccess(_ body: [UInt8]) async throws(SMOACError) -> ServiceResponse {
        let parsed = try VacaAccessRequest.parse(body, mode: configuration.mode)
        let verified = try await tokens.verifyAssertion(parsed.value.clientAssertion, purpose: .clientAuthentication, body: body, quirks: parsed.quirks)
        let taken: AuthorizationCode?
        do {
            taken = try await store.take(parsed.value.code)
        } catch {
            throw .storageFailure(error.description)
        }
        let token = try await tokens.mintToken(code: taken, presentedCode: parsed.value.code, assertion: verified, quirks: parsed.quirks, body: body)
        let bare = configuration.mode == .compat && verified.quirks.contains(.codeBoundAssertion)
        let response = token.response(at: token.issuedAt).body(bareToken: bare)
        return ServiceResponse(contentType: bare ? "text/plain; charset=utf-8" : "application/json",
                               headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: response.value)
    }
}
