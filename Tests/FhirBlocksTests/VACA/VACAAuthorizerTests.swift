import Testing
@testable import FhirBlocks
import TestSupport

/// vaca/auth → code → vaca/access → token → introspection, and every rejection on the way.
@Suite struct VACAAuthorizerTests {
    static let wallet = csi(number: 1)
    static let app = csi(AppendixA.granter)
    static let other = csi(number: 7)
    static let authorizer = VACAAuthorizer()

    static func ledger() -> (PermissionLedger, Permission) {
        let permission = Permission(id: PermissionID("w1"), patient: wallet, grantor: wallet, grantee: app,
                                    scope: ScopeAndLabelTests.held(.type("Patient"), .v1Read, .V, ["ETH", "SOC"]),
                                    window: TimeWindow(notBefore: at(-1000), notAfter: at(100_000)), parent: nil, grantedAt: at(-1000))
        return (PermissionLedger(wallets: [wallet], permissions: [permission]), permission)
    }

    static func assertion(_ issuer: CsiGuid = app, scope: String? = "patient/Patient.read sens/ETH sens/SOC conf/V") -> VerifiedAssertion {
        VerifiedAssertion(issuer: issuer, subject: issuer.rawValue, subjectWallet: nil, scope: scope, jti: "j", code: nil,
                          issuedAt: at(0), expiresAt: at(300), quirks: [])
    }

    @Test func fullFlow() async throws {
        var random = SplitMix64(seed: 5)
        var (ledger, permission) = Self.ledger()
        let store = InMemoryAuthorizationCodeStore()
        let code = try Self.authorizer.issueCode(for: Self.assertion(), requestedScope: nil, patient: nil, ledger: ledger, now: at(0), using: &random)
        #expect(code.patient == Self.wallet && code.client == Self.app && code.permissionIDs == [permission.id])
        #expect(code.scope.text == "patient/Patient.read conf/V sens/ETH sens/SOC")
        #expect(code.expiresAt == at(60) && code.code.utf8.count == 43)
        #expect(code.response(at: at(0)).expiresIn == 60)
        try await store.put(code)

        let taken = try await store.take(code.code)
        let token = try Self.authorizer.redeem(taken, presentedCode: code.code, clientAssertion: Self.assertion(), ledger: ledger, now: at(5), using: &random)
        #expect(token.expiresAt == at(305) && token.patient == Self.wallet && token.token != code.code)
        #expect(token.response(at: at(5)).expiresIn == 300)
        #expect(token.tokenHash == AccessToken.hash(of: token.token) && token.tokenHash.utf8.count == 64)
        let introspection = token.introspection(at: at(10), ledger: ledger)
        #expect(introspection.active && introspection.scope == code.scope.text && introspection.clientID == Self.app.rawValue
                    && introspection.exp == at(305).secondsSince1970)
        #expect(!token.introspection(at: at(305), ledger: ledger).active)

        // The code is single-use.
        let again = try await store.take(code.code)
        #expect(again == nil)
        #expect(throws: SMOACError.invalidGrant("unknown or already used code")) {
            try Self.authorizer.redeem(again, presentedCode: code.code, clientAssertion: Self.assertion(), ledger: ledger, now: at(6), using: &random)
        }

        // Revocation takes effect on the next use.
        _ = ledger.revoke(permission.id, at: at(20))
        #expect(token.grants(at: at(20), ledger: ledger).isEmpty)
        #expect(token.introspection(at: at(20), ledger: ledger) == .inactive)
    }

    @Test func codeRejections() throws {
        var random = SplitMix64(seed: 6)
        var (ledger, permission) = Self.ledger()
        let code = try Self.authorizer.issueCode(for: Self.assertion(), requestedScope: nil, patient: nil, ledger: ledger, now: at(0), using: &random)
        #expect(throws: SMOACError.invalidGrant("the code has expired")) {
            try Self.authorizer.redeem(code, presentedCode: code.code, clientAssertion: Self.assertion(), ledger: ledger, now: at(60), using: &random)
        }
        #expect(throws: SMOACError.invalidGrant("the code was issued to another client")) {
            try Self.authorizer.redeem(code, presentedCode: code.code, clientAssertion: Self.assertion(Self.other), ledger: ledger, now: at(1), using: &random)
        }
        var bound = Self.assertion()
        bound.code = "other"
        #expect(throws: SMOACError.self) {
            try Self.authorizer.redeem(code, presentedCode: code.code, clientAssertion: bound, ledger: ledger, now: at(1), using: &random)
        }
        _ = ledger.revoke(permission.id, at: at(1))
        #expect(throws: SMOACError.self) {
            try Self.authorizer.redeem(code, presentedCode: code.code, clientAssertion: Self.assertion(), ledger: ledger, now: at(2), using: &random)
        }
    }

    @Test func scopeEscalationAndMissingPermission() throws {
        var random = SplitMix64(seed: 7)
        let (ledger, _) = Self.ledger()
        #expect(throws: SMOACError.invalidScope("nothing of the requested scope is held")) {
            try Self.authorizer.issueCode(for: Self.assertion(), requestedScope: "patient/Patient.write patient/Observation.read", patient: nil,
                                          ledger: ledger, now: at(0), using: &random)
        }
        #expect(throws: SMOACError.self) {
            try Self.authorizer.issueCode(for: Self.assertion(Self.other), requestedScope: nil, patient: nil, ledger: ledger, now: at(0), using: &random)
        }
        #expect(throws: SMOACError.self) {
            try Self.authorizer.issueCode(for: Self.assertion(), requestedScope: nil, patient: Self.other, ledger: ledger, now: at(0), using: &random)
        }
        #expect(throws: SMOACError.invalidScope("no scope requested")) {
            try Self.authorizer.issueCode(for: Self.assertion(scope: nil), requestedScope: nil, patient: nil, ledger: ledger, now: at(0), using: &random)
        }
        // Outside the permission's window, nothing is held.
        #expect(throws: SMOACError.self) {
            try Self.authorizer.issueCode(for: Self.assertion(), requestedScope: nil, patient: nil, ledger: ledger, now: at(100_000), using: &random)
        }
        // A narrower request gets the narrower grant.
        let narrow = try Self.authorizer.issueCode(for: Self.assertion(), requestedScope: "patient/Patient.r", patient: nil, ledger: ledger, now: at(0),
                                                   using: &random)
        #expect(narrow.scope.text == "patient/Patient.r" && narrow.scope.grants.first?.confidentialityCeiling == .N)
    }

    @Test func lifetimesAreCapped() {
        let capped = VACAAuthorizer(codeLifetimeSeconds: 600, tokenLifetimeSeconds: 3600)
        #expect(capped.codeLifetimeSeconds == 60 && capped.tokenLifetimeSeconds == 300)
        #expect(AssertionPolicy(audiences: [], maximumLifetimeSeconds: 900).maximumLifetimeSeconds == 300)
    }

    @Test func bearerHeaders() {
        #expect(BearerCredential.token(fromAuthorization: "Bearer abc.def", mode: .strict) == Accepted("abc.def"))
        #expect(BearerCredential.token(fromAuthorization: "bearer  abc", mode: .strict) == Accepted("abc"))
        #expect(BearerCredential.token(fromAuthorization: "Bearerabc", mode: .strict) == nil)
        #expect(BearerCredential.token(fromAuthorization: "Bearerabc", mode: .compat) == Accepted("abc", quirks: [.bearerWithoutSpace]))
        #expect(BearerCredential.token(fromAuthorization: "Basic abc", mode: .compat) == nil)
        #expect(BearerCredential.token(fromAuthorization: "Bearer a b", mode: .compat) == nil)
        #expect(BearerCredential.token(fromAuthorization: "Bearer ", mode: .compat) == nil)
        let response = TokenResponse(accessToken: "tok", expiresIn: 300, scope: "s", patient: nil)
        #expect(response.body(bareToken: true) == Accepted(Array("tok".utf8), quirks: [.bareTokenResponse]))
        #expect(response.body(bareToken: false).quirks.isEmpty)
    }
}
