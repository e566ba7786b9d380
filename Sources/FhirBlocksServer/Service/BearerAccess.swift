import FhirBlocks
import FhirBlocksStore

extension TrustService {
    /// What an active bearer token grants on one request: its stored record, the grants the
    /// permission ledger backs now, the compat quirks of how it was presented, and its scope
    /// string (for audit entries, computed once per cached token). A class, so handing it
    /// from the middleware through the request context to the endpoint copies one reference.
    final class BearerAccess: Sendable {
        /// The token's stored record.
        let token: StoredAccessToken
        /// The grants usable now. The patient's own wallet's (its client is the patient) also
        /// hold ``SecurityLabels/unrecognised``: a label the server does not understand hides a
        /// resource from every grantee, never from the patient.
        let grants: [PermissionScope]
        /// How the header deviated from the standard form (compat mode).
        let quirks: [CompatQuirk]
        /// `token.scope.text`.
        let scopeText: String

        init(token: StoredAccessToken, grants: [PermissionScope], quirks: [CompatQuirk], scopeText: String) {
            self.token = token
            // A backend client's token (`system/` grants) stands for the client, not a patient.
            self.grants = token.client != token.patient || grants.allSatisfy({ $0.permissionType == .system }) ? grants : grants.map { grant in
                var owned = grant
                owned.sensitivities = grant.sensitivities.includingUnrecognisedLabels
                return owned
            }
            self.quirks = quirks
            self.scopeText = scopeText
        }
    }

    /// A stored token kept in memory (``LedgerCache``) with its scope string.
    struct CachedAccessToken: Sendable {
        let stored: StoredAccessToken
        let scopeText: String

        init(_ stored: StoredAccessToken) {
            self.stored = stored
            scopeText = stored.scope.text
        }
    }
}

/// What an active bearer token grants on one request (``TrustService/BearerAccess``), as the endpoints name it.
typealias BearerAccess = TrustService.BearerAccess

extension TrustService.BearerAccess {
    /// What a backend client's token (its `system/` scope `scopeText`) grants over `patient`'s
    /// data at `instant` (nil when nothing): the scope in its `patient/` form ∩ the permissions
    /// the client holds from the patient, as the token endpoint issues it, then the grants
    /// `ledger` backs, as every request checks them. The one rule behind a backend token's
    /// REST reads and a Bulk Data export's files.
    static func backend(client: CsiGuid, tokenID: String, scopeText: String, patient: CsiGuid, issuedAt: Timestamp, expiresAt: Timestamp,
                        quirks: [CompatQuirk], ledger: PermissionLedger, at instant: Timestamp, policy: LabelPolicy) -> BearerAccess? {
        let held = ledger.held(by: client, patient: patient, at: instant).filter { $0.scope != .auditor }
        guard patient != client, !held.isEmpty else { return nil }
        let (granted, permissionIDs) = ScopeRequest(BackendServices.patientForm(of: scopeText)).grant(heldPermissions: held, policy: policy)
        guard !granted.isEmpty else { return nil }
        let token = StoredAccessToken(tokenHash: "", id: tokenID, client: client, patient: patient, scope: granted, permissionIDs: permissionIDs,
                                      issuedAt: issuedAt, expiresAt: expiresAt)
        let grants = token.accessToken(presented: "").grants(at: instant, ledger: ledger)
        guard !grants.isEmpty else { return nil }
        return BearerAccess(token: token, grants: grants, quirks: quirks, scopeText: granted.text)
    }
}
