import CommonSupport

/// The pure state machine of VACA (§1.8): `vaca/auth` turns a verified assertion into a
/// single-use code bound to client, patient and granted scope (= requested ∩ held);
/// `vaca/access` turns that code, taken from the store, and a verified client assertion into
/// an access token. Randomness and time come in as parameters.
public struct VACAAuthorizer: Sendable {
    /// Code lifetime (at most 60 s).
    public var codeLifetimeSeconds: Int64
    /// Token lifetime (at most 300 s).
    public var tokenLifetimeSeconds: Int64
    /// Label policy (default ceiling for requests without `conf/`).
    public var labelPolicy: LabelPolicy

    /// Creates an authorizer.
    public init(codeLifetimeSeconds: Int64 = 60, tokenLifetimeSeconds: Int64 = 300, labelPolicy: LabelPolicy = .default) {
        self.codeLifetimeSeconds = min(max(1, codeLifetimeSeconds), 60)
        self.tokenLifetimeSeconds = min(max(1, tokenLifetimeSeconds), 300)
        self.labelPolicy = labelPolicy
    }

    /// `vaca/auth`: resolves the patient (the request's `patient`, else a wallet named by `sub`,
    /// else the only patient the client holds anything from), grants requested ∩ held, and
    /// issues a code. `requestedScope` is the form's `scope`, else the assertion's.
    public func issueCode(for assertion: VerifiedAssertion, requestedScope: String?, patient requestedPatient: CsiGuid?,
                          ledger: PermissionLedger, now: Timestamp, using generator: inout some RandomNumberGenerator) throws(SMOACError) -> AuthorizationCode {
        guard let scopeText = requestedScope ?? assertion.scope, !scopeText.isEmpty else {
            throw .invalidScope("no scope requested")
        }
        let client = assertion.issuer
        let held = ledger.held(by: client, at: now)
        let patient: CsiGuid
        if let selected = requestedPatient ?? assertion.subjectWallet {
            patient = selected
        } else {
            // The auditor scope (held over the client itself) does not make a second patient:
            // without "patient", a client that is also an auditor still reads its one patient.
            let patients = Set(held.filter { $0.scope != .auditor }.map(\.patient))
            guard patients.count <= 1 else { throw .malformedRequest("vaca/auth: the client holds permissions from several patients; send \"patient\"") }
            guard let only = patients.first ?? held.first?.patient else { throw .accessDenied("the client holds no permission") }
            patient = only
        }
        let relevant = held.filter { $0.patient == patient }
        guard !relevant.isEmpty else { throw .accessDenied("the client holds no permission from this patient") }
        let (granted, permissionIDs) = ScopeRequest(scopeText).grant(heldPermissions: relevant, policy: labelPolicy)
        guard !granted.isEmpty else { throw .invalidScope("nothing of the requested scope is held") }
        return AuthorizationCode(code: Self.randomToken(using: &generator), client: client, patient: patient, scope: granted,
                                 permissionIDs: permissionIDs, issuedAt: now, expiresAt: now.adding(seconds: codeLifetimeSeconds))
    }

    /// `vaca/access`: `code` is what the store's `take` returned for `presentedCode` (nil if
    /// unknown or already used). The code must be unexpired and bound to the assertion's
    /// issuer (and to the assertion's `code` claim, if any); its permissions are re-checked.
    public func redeem(_ code: AuthorizationCode?, presentedCode: String, clientAssertion: VerifiedAssertion, ledger: PermissionLedger,
                       now: Timestamp, using generator: inout some RandomNumberGenerator) throws(SMOACError) -> AccessToken {
        guard let code, code.code == presentedCode else { throw .invalidGrant("unknown or already used code") }
        guard now < code.expiresAt else { throw .invalidGrant("the code has expired") }
        guard clientAssertion.issuer == code.client else { throw .invalidGrant("the code was issued to another client") }
        if let bound = clientAssertion.code, bound != presentedCode { throw .invalidClient("the client assertion names another code") }
        let grants = ledger.tokenGrants(code.scope.grants, permissionIDs: code.permissionIDs, client: code.client, patient: code.patient, at: now)
        guard grants.count == code.scope.grants.count else { throw .invalidGrant("a permission behind the code was revoked or expired") }
        return AccessToken(token: Self.randomToken(using: &generator), id: Self.randomToken(using: &generator), client: code.client,
                           patient: code.patient, scope: code.scope, permissionIDs: code.permissionIDs, issuedAt: now,
                           expiresAt: now.adding(seconds: tokenLifetimeSeconds))
    }

    /// base64url of 32 random bytes (256 bits).
    public static func randomToken(using generator: inout some RandomNumberGenerator) -> String {
        Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
