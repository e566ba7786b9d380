import Testing
@testable import FhirBlocks
import TestSupport

/// The permission algebra: delegation, time windows, revocation (§1.8).
@Suite struct PermissionLedgerTests {
    static let wallet = csi(number: 1)
    static let app = csi(number: 2)
    static let provider = csi(number: 3)
    static let caregiver = csi(number: 4)
    static let otherWallet = csi(number: 5)
    static let day: Int64 = 86_400

    static func scope(_ resource: String = "*", _ access: AccessRights = .v1Read, _ conf: ConfidentialityLevel = .R,
                      _ sens: [String] = ["ETH", "SOC"]) -> PermissionScope {
        PermissionScope(permissionType: .patient, resource: ResourceScope(resource) ?? .all, access: access,
                        confidentialityCeiling: conf, sensitivities: SensitivitySet(Set(sens.compactMap(SensitivityCode.init))))
    }

    static func window(_ from: Int64, _ to: Int64) -> TimeWindow { TimeWindow(notBefore: at(from * day), notAfter: at(to * day)) }

    /// Applies an authorization as the server would.
    static func write(_ ledger: inout PermissionLedger, _ request: GrantRequest, now: Timestamp, id: String) throws(PermissionDenial) -> [Permission] {
        let authorizations = try ledger.authorizeGrant(request, at: now)
        var written: [Permission] = []
        for (index, authorization) in authorizations.enumerated() {
            let permission = Permission(id: PermissionID("\(id)-\(index)"), authorization: authorization, grantedAt: now)
            ledger.insert(permission)
            written.append(permission)
        }
        return written
    }

    /// wallet → app: patient/*.read conf ≤ R sens {ETH, SOC} for days [0, 30).
    static func walletGrantsApp() throws -> (PermissionLedger, Permission) {
        var ledger = PermissionLedger(wallets: [wallet, otherWallet])
        let written = try write(&ledger, GrantRequest(grantor: wallet, grantees: [app], scope: scope(), window: window(0, 30)), now: at(0), id: "w")
        return (ledger, try #require(written.first))
    }

    @Test func walletGrantIsARootAndEffective() throws {
        let (ledger, root) = try Self.walletGrantsApp()
        #expect(root.parent == nil && root.patient == Self.wallet && root.grantor == Self.wallet)
        let held = try ledger.effective(root.id, at: at(Self.day))
        #expect(held.chain == [root.id] && held.holder == Self.app)
        #expect(ledger.held(by: Self.app, at: at(Self.day)).count == 1)
        #expect(ledger.held(by: Self.wallet, at: at(Self.day)).first?.scope == .owner)
    }

    @Test func appDelegatesASubsetWithinItsWindow() throws {
        var (ledger, root) = try Self.walletGrantsApp()
        let request = GrantRequest(grantor: Self.app, grantees: [Self.provider, Self.caregiver],
                                   scope: Self.scope("Observation", .read, .N, ["ETH"]), window: Self.window(1, 10), patient: Self.wallet)
        let written = try Self.write(&ledger, request, now: at(Self.day), id: "a")
        #expect(written.count == 2)
        #expect(written.allSatisfy { $0.parent == root.id && $0.patient == Self.wallet && $0.scope.isSubset(of: root.scope) })
        let held = try ledger.effective(written[0].id, at: at(2 * Self.day))
        #expect(held.chain == [written[0].id, root.id])
    }

    @Test func scopeEscalationIsRejected() throws {
        let (ledger, _) = try Self.walletGrantsApp()
        let escalations = [
            Self.scope("*", .all),                         // write access
            Self.scope("*", .v1Read, .V),                  // higher confidentiality
            Self.scope("*", .v1Read, .R, ["ETH", "HIV"]),  // extra sensitivity
        ]
        for scope in escalations {
            #expect(throws: PermissionDenial.scopeEscalation) {
                try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: scope, window: Self.window(1, 2),
                                                       patient: Self.wallet), at: at(Self.day))
            }
        }
        // A provider that received Observation only cannot pass on every resource type.
        var chained = ledger
        _ = try Self.write(&chained, GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope("Observation"), window: Self.window(1, 5),
                                                  patient: Self.wallet), now: at(Self.day), id: "p")
        #expect(throws: PermissionDenial.scopeEscalation) {
            try chained.authorizeGrant(GrantRequest(grantor: Self.provider, grantees: [Self.caregiver], scope: Self.scope("*"), window: Self.window(1, 2),
                                                    patient: Self.wallet), at: at(Self.day))
        }
    }

    @Test func grantOutsideTheTimeWindowIsRejected() throws {
        let (ledger, _) = try Self.walletGrantsApp()
        for window in [Self.window(1, 31), Self.window(-1, 5)] {
            #expect(throws: PermissionDenial.outsideTimeWindow) {
                try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: window, patient: Self.wallet),
                                          at: at(Self.day))
            }
        }
        // After the app's permission expired, it holds nothing in force.
        #expect(throws: PermissionDenial.outsideTimeWindow) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: Self.window(31, 32),
                                                   patient: Self.wallet), at: at(30 * Self.day))
        }
        // An empty or past window is invalid.
        #expect(throws: PermissionDenial.invalidTimeWindow) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: Self.window(5, 5),
                                                   patient: Self.wallet), at: at(Self.day))
        }
        #expect(throws: PermissionDenial.invalidTimeWindow) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.wallet, grantees: [Self.app], scope: Self.scope(), window: Self.window(0, 1)),
                                      at: at(2 * Self.day))
        }
        // A delegated permission is not in force outside its own window.
        var chained = ledger
        let written = try Self.write(&chained, GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: Self.window(2, 3),
                                                            patient: Self.wallet), now: at(Self.day), id: "p")
        #expect(throws: PermissionDenial.outsideTimeWindow) { try chained.effective(written[0].id, at: at(Self.day)) }
        #expect(throws: PermissionDenial.outsideTimeWindow) { try chained.effective(written[0].id, at: at(3 * Self.day)) }
    }

    @Test func revokedPermissionIsRejectedAndCascades() throws {
        var (ledger, root) = try Self.walletGrantsApp()
        let delegated = try Self.write(&ledger, GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: Self.window(1, 5),
                                                             patient: Self.wallet), now: at(Self.day), id: "p")
        let revoked = ledger.revoke(grantor: Self.wallet, grantee: Self.app, at: at(2 * Self.day))
        #expect(revoked == [root.id])
        let revokedAgain = ledger.revoke(grantor: Self.wallet, grantee: Self.app, at: at(2 * Self.day))
        #expect(revokedAgain.isEmpty)
        // Before the revocation instant it was in force; from then on, neither it nor its child.
        #expect(throws: Never.self) { try ledger.effective(delegated[0].id, at: at(2 * Self.day - 1)) }
        #expect(throws: PermissionDenial.revoked(root.id)) { try ledger.effective(root.id, at: at(2 * Self.day)) }
        #expect(throws: PermissionDenial.revoked(root.id)) { try ledger.effective(delegated[0].id, at: at(2 * Self.day)) }
        #expect(throws: PermissionDenial.revoked(root.id)) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.caregiver], scope: Self.scope(), window: Self.window(3, 4),
                                                   patient: Self.wallet), at: at(3 * Self.day))
        }
        let revokedByID = ledger.revoke(root.id, at: at(9))
        #expect(!revokedByID)
    }

    @Test func otherRejections() throws {
        let (ledger, _) = try Self.walletGrantsApp()
        #expect(throws: PermissionDenial.selfGrant) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.app], scope: Self.scope(), window: Self.window(1, 2),
                                                   patient: Self.wallet), at: at(Self.day))
        }
        #expect(throws: PermissionDenial.noPermissionHeld) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.provider, grantees: [Self.caregiver], scope: Self.scope(), window: Self.window(1, 2),
                                                   patient: Self.wallet), at: at(Self.day))
        }
        #expect(throws: PermissionDenial.unknownPermission(PermissionID("nope"))) { try ledger.effective(PermissionID("nope"), at: at(0)) }
        // A "root" written by a non-wallet is not a chain.
        var forged = ledger
        forged.insert(Permission(id: PermissionID("f"), patient: Self.app, grantor: Self.app, grantee: Self.provider, scope: Self.scope(),
                                 window: Self.window(0, 9), parent: nil, grantedAt: at(0)))
        #expect(throws: PermissionDenial.brokenChain(PermissionID("f"))) { try forged.effective(PermissionID("f"), at: at(Self.day)) }
        // A child wider than its stored parent is not a chain either.
        forged.insert(Permission(id: PermissionID("g"), patient: Self.wallet, grantor: Self.app, grantee: Self.provider, scope: Self.scope("*", .all),
                                 window: Self.window(0, 9), parent: PermissionID("w-0"), grantedAt: at(0)))
        #expect(throws: PermissionDenial.brokenChain(PermissionID("g"))) { try forged.effective(PermissionID("g"), at: at(Self.day)) }
        // A cycle.
        forged.insert(Permission(id: PermissionID("c1"), patient: Self.wallet, grantor: Self.caregiver, grantee: Self.provider, scope: Self.scope(),
                                 window: Self.window(0, 9), parent: PermissionID("c2"), grantedAt: at(0)))
        forged.insert(Permission(id: PermissionID("c2"), patient: Self.wallet, grantor: Self.provider, grantee: Self.caregiver, scope: Self.scope(),
                                 window: Self.window(0, 9), parent: PermissionID("c1"), grantedAt: at(0)))
        #expect(throws: PermissionDenial.brokenChain(PermissionID("c1"))) { try forged.effective(PermissionID("c1"), at: at(Self.day)) }
    }

    @Test func unsignedAccessTypeGrantsReadOnly() throws {
        var (ledger, _) = try Self.walletGrantsApp()
        // The app holds read only; an unsigned "write" yields read.
        let fromApp = try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope("*", .v1Write),
                                                             window: Self.window(1, 2), patient: Self.wallet, accessIsSigned: false), at: at(Self.day))
        #expect(fromApp.first?.scope.access == .v1Read)
        // Signed, the same request is an escalation.
        #expect(throws: PermissionDenial.scopeEscalation) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope("*", .v1Write), window: Self.window(1, 2),
                                                   patient: Self.wallet), at: at(Self.day))
        }
        // Even from the wallet, which holds everything, an unsigned "write" yields read only:
        // the legacy payload leaves accessType outside the signature.
        let fromWallet = try ledger.authorizeGrant(GrantRequest(grantor: Self.wallet, grantees: [Self.caregiver], scope: Self.scope("*", .v1Write),
                                                                window: Self.window(1, 2), accessIsSigned: false), at: at(Self.day))
        #expect(fromWallet.first?.scope.access == .v1Read)
        // From a writePermission body verified with the unsigned-access quirk.
        let request = try GrantRequest(AppendixA.writePermissionRequest(), quirks: [.legacySignedPayload, .unsignedAccessType])
        #expect(!request.accessIsSigned && request.scope.access == .v1Write)
        ledger.wallets.insert(request.grantor)
    }

    @Test func severalPatientsAreDelegatedSeparately() throws {
        var (ledger, _) = try Self.walletGrantsApp()
        _ = try Self.write(&ledger, GrantRequest(grantor: Self.otherWallet, grantees: [Self.app], scope: Self.scope(), window: Self.window(0, 30)), now: at(0),
                           id: "o")
        // Strict: the app must name whose data it passes on.
        #expect(throws: PermissionDenial.patientNotNamed) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: Self.window(1, 2)),
                                      at: at(Self.day))
        }
        let one = try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: Self.window(1, 2),
                                                         patient: Self.otherWallet), at: at(Self.day))
        #expect(one.map(\.patient) == [Self.otherWallet])
        // The legacy behaviour (compat): every patient the app holds a covering permission from.
        let both = try ledger.authorizeGrant(GrantRequest(grantor: Self.app, grantees: [Self.provider], scope: Self.scope(), window: Self.window(1, 2),
                                                          allowsImplicitPatients: true), at: at(Self.day))
        #expect(Set(both.map(\.patient)) == [Self.wallet, Self.otherWallet])
    }

    /// A caregiver's wallet holding another patient's permission grants its own app: the grant
    /// covers the caregiver's own data only, unless it names the other patient.
    @Test func aWalletGrantCoversItsOwnData() throws {
        var (ledger, _) = try Self.walletGrantsApp()
        ledger.wallets.insert(Self.otherWallet)
        _ = try Self.write(&ledger, GrantRequest(grantor: Self.otherWallet, grantees: [Self.wallet], scope: Self.scope("Observation"), window: Self.window(0,
            30)),
                           now: at(0), id: "care")
        for implicit in [false, true] {
            let own = try ledger.authorizeGrant(GrantRequest(grantor: Self.wallet, grantees: [Self.caregiver], scope: Self.scope("Observation"),
                                                             window: Self.window(1, 2), allowsImplicitPatients: implicit), at: at(Self.day))
            #expect(own.map(\.patient) == [Self.wallet])
        }
        let named = try ledger.authorizeGrant(GrantRequest(grantor: Self.wallet, grantees: [Self.caregiver], scope: Self.scope("Observation"),
                                                           window: Self.window(1, 2), patient: Self.otherWallet), at: at(Self.day))
        #expect(named.map(\.patient) == [Self.otherWallet] && named.first?.parent != nil)
    }

    /// A listed auditor holds the auditor scope over itself, gets it on a token, and cannot
    /// pass it on; nobody else holds it.
    @Test func auditorsHoldTheAuditorScopeAndCannotPassItOn() throws {
        var (ledger, _) = try Self.walletGrantsApp()
        ledger.auditors = [Self.caregiver]
        #expect(ledger.held(by: Self.caregiver, at: at(0)).map(\.scope) == [.auditor])
        #expect(!ledger.held(by: Self.app, at: at(0)).contains { $0.scope == .auditor })
        #expect(ledger.tokenGrants([.auditor], permissionIDs: [], client: Self.caregiver, patient: Self.caregiver, at: at(0)) == [.auditor])
        #expect(ledger.tokenGrants([.auditor], permissionIDs: [], client: Self.app, patient: Self.app, at: at(0)).isEmpty)
        #expect(throws: PermissionDenial.noPermissionHeld) {
            try ledger.authorizeGrant(GrantRequest(grantor: Self.caregiver, grantees: [Self.provider], scope: .auditor, window: Self.window(1, 2),
                                                   patient: Self.caregiver), at: at(Self.day))
        }
    }

    @Test func tokenGrantsAreRecheckedAgainstRevocation() throws {
        var (ledger, root) = try Self.walletGrantsApp()
        let grants = [Self.scope("Observation", .read, .N, ["ETH"])]
        #expect(ledger.tokenGrants(grants, permissionIDs: [root.id], client: Self.app, patient: Self.wallet, at: at(Self.day)) == grants)
        #expect(ledger.tokenGrants(grants, permissionIDs: [root.id], client: Self.provider, patient: Self.wallet, at: at(Self.day)).isEmpty)
        #expect(ledger.tokenGrants([Self.scope("*", .all)], permissionIDs: [root.id], client: Self.app, patient: Self.wallet, at: at(Self.day)).isEmpty)
        _ = ledger.revoke(root.id, at: at(Self.day + 1))
        #expect(ledger.tokenGrants(grants, permissionIDs: [root.id], client: Self.app, patient: Self.wallet, at: at(Self.day + 1)).isEmpty)
        // A wallet's own token needs no permission.
        #expect(ledger.tokenGrants(grants, permissionIDs: [], client: Self.wallet, patient: Self.wallet, at: at(0)) == grants)
    }

    @Test func randomDelegationsNeverEscalate() throws {
        var random = SplitMix64(seed: 42)
        let parties = (1...6).map { csi(number: $0) }
        let resources = ["*", "Patient", "Observation"]
        let accesses: [AccessRights] = [.v1Read, .v1Write, .all, .read]
        let sens = [[], ["ETH"], ["ETH", "SOC"], ["HIV"]]
        for round in 0..<40 {
            var ledger = PermissionLedger(wallets: [parties[0]])
            for step in 0..<25 {
                let grantor = parties[Int.random(in: 0..<parties.count, using: &random)]
                let grantee = parties[Int.random(in: 0..<parties.count, using: &random)]
                let start = Int64.random(in: 0...20, using: &random)
                let request = GrantRequest(grantor: grantor, grantees: [grantee],
                                           scope: Self.scope(resources.randomElement(using: &random) ?? "*", accesses.randomElement(using: &random) ?? .read,
                                                             ConfidentialityLevel.allCases.randomElement(using: &random) ?? .N,
                                                             sens.randomElement(using: &random) ?? []),
                                           window: Self.window(start, start + Int64.random(in: 1...20, using: &random)),
                                           accessIsSigned: Bool.random(using: &random), allowsImplicitPatients: true)
                let now = at(Int64.random(in: 0...10, using: &random) * Self.day)
                guard let written = try? Self.write(&ledger, request, now: now, id: "\(round)-\(step)") else { continue }
                for permission in written {
                    let held = try ledger.effective(permission.id, at: max(now, permission.window.notBefore))
                    if let parentID = permission.parent, let parent = ledger.permissions[parentID] {
                        #expect(permission.scope.isSubset(of: parent.scope) && permission.window.isWithin(parent.window))
                    } else {
                        #expect(permission.grantor == parties[0])
                    }
                    #expect(held.chain.count <= 8)
                }
                if Int.random(in: 0..<5, using: &random) == 0 {
                    _ = ledger.revoke(grantor: grantor, grantee: grantee, at: now)
                }
            }
        }
    }
}
