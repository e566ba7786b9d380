import FhirBlocks
import FhirBlocksStore
import Testing
import TestSupport

/// The conformance suite, written once against the protocol: each backend's suite
/// (``SQLiteConformanceTests``, ``PostgresConformanceTests``) runs every check on a fresh
/// store of its own.
enum ConformanceChecks {
    static let all: [ConformanceCheck] = [
        ConformanceCheck(name: "a new store is empty", run: emptyStore),
        ConformanceCheck(name: "an empty change writes nothing", run: emptyChange),
        ConformanceCheck(name: "migrate twice is harmless", run: migrateTwice),
        ConformanceCheck(name: "registrations and issued GUIDs round-trip", run: registrationsRoundTrip),
        ConformanceCheck(name: "issued GUIDs expire", run: issuedGuidsExpire),
        ConformanceCheck(name: "a duplicate registration is rejected and nothing of its change stored", run: duplicateRegistration),
        ConformanceCheck(name: "a csiGuid registered twice in one change is rejected", run: duplicateWithinChange),
        ConformanceCheck(name: "permissions round-trip", run: permissionsRoundTrip),
        ConformanceCheck(name: "registrations and permissions listed oldest first, then in byte order", run: listsInDefinedOrder),
        ConformanceCheck(name: "a revocation keeps the first time", run: revocationKeepsFirstTime),
        ConformanceCheck(name: "the ledger version rises with grants and revocations only", run: ledgerVersionRises),
        ConformanceCheck(name: "access tokens round-trip and revoke", run: tokensRoundTrip),
        ConformanceCheck(name: "resource versions", run: resourceVersions),
        ConformanceCheck(name: "the ledger version and a resource read together", run: ledgerVersionAndResource),
        ConformanceCheck(name: "concurrent writes of one resource version: exactly one wins", run: resourceConcurrentWrites),
        ConformanceCheck(name: "resources by patient and type, ordered", run: resourcesByPatient),
        ConformanceCheck(name: "a compartment paged after a cursor with a limit, in (type, id) byte order", run: compartmentPages),
        ConformanceCheck(name: "resources by a list of ids, across statement boundaries, with repeats and ids not stored", run: resourcesByIDList),
        ConformanceCheck(name: "audit entries round-trip with dense indexes", run: auditRoundTrip),
        ConformanceCheck(name: "audit records by signature digest", run: auditBySignatureDigest),
        ConformanceCheck(name: "audit indexes stay dense under 8 concurrent commits", run: auditConcurrentCommits),
        ConformanceCheck(name: "a commit with a completion: the indexes, or the refusal and nothing stored", run: auditCommitWithCompletion),
        ConformanceCheck(name: "a group of 150 audit entries (several insert statements) keeps its order and digests", run: auditLargeGroup),
        ConformanceCheck(name: "checkpoints ordered by tree size, first kept", run: checkpointsOrdered),
        ConformanceCheck(name: "a nonce is single use", run: nonceSingleUse),
        ConformanceCheck(name: "an expired nonce may be reused", run: nonceExpiryReuse),
        ConformanceCheck(name: "20 concurrent inserts of one nonce: exactly one wins", run: nonceConcurrent),
        ConformanceCheck(name: "an authorization code is taken once", run: codeTakenOnce),
        ConformanceCheck(name: "concurrent takes of one code: exactly one wins", run: codeConcurrentTakes),
        ConformanceCheck(name: "SMART clients round-trip and count", run: smartClientsRoundTrip),
        ConformanceCheck(name: "SMART authorizations: conditional moves, lookups, purge", run: smartAuthorizationTransitions),
        ConformanceCheck(name: "8 concurrent moves of one SMART authorization: exactly one wins", run: smartAuthorizationConcurrentMoves),
        ConformanceCheck(name: "a refresh token is used once, also under concurrency", run: refreshTokenUsedOnce),
        ConformanceCheck(name: "a reopened store sees everything committed", run: reopenSeesEverything),
    ]

    // MARK: Basics

    static func issuedGuidsExpire(_ session: StoreSession) async throws {
        let store = session.store
        let old = Fixtures.csi(), recent = Fixtures.csi(), new = Fixtures.csi()
        var first = TrustChange()
        first.issuedGuids = [IssuedGuid(guid: old, issuedAt: Fixtures.t0), IssuedGuid(guid: recent, issuedAt: Fixtures.t0.adding(seconds: 500))]
        try await store.commit(first)
        #expect(try await store.issuedGuid(recent)?.issuedAt == Fixtures.t0.adding(seconds: 500))
        // Issuing another GUID at t0+700 with a 600 s lifetime forgets the one from t0 only.
        var second = TrustChange()
        second.issuedGuids = [IssuedGuid(guid: new, issuedAt: Fixtures.t0.adding(seconds: 700))]
        second.issuedGuidsExpiringBefore = Fixtures.t0.adding(seconds: 100)
        #expect(!second.isEmpty)
        try await store.commit(second)
        #expect(try await store.issuedGuid(old) == nil)
        #expect(try await store.isIssuedGuid(recent))
        #expect(try await store.isIssuedGuid(new))
    }

    static func emptyStore(_ session: StoreSession) async throws {
        let store = session.store
        #expect(try await store.auditCount() == 0)
        #expect(try await store.auditRecords(from: 0, limit: 10).isEmpty)
        #expect(try await store.registrations().isEmpty)
        #expect(try await store.permissions().isEmpty)
        #expect(try await store.checkpoints().isEmpty)
        #expect(try await store.latestCheckpoint() == nil)
        #expect(try await store.registration(Fixtures.csi()) == nil)
        #expect(try await store.isIssuedGuid(Fixtures.csi()) == false)
        #expect(try await store.token(hash: String(repeating: "0", count: 64)) == nil)
        #expect(try await store.resource(patient: Fixtures.csi(), type: "Observation", id: "1") == nil)
        #expect(try await store.resources(patient: Fixtures.csi(), type: nil).isEmpty)
        #expect(try await store.auditRecords(signatureDigest: "ff").isEmpty)
        #expect(try await store.take("no-such-code") == nil)
    }

    static func emptyChange(_ session: StoreSession) async throws {
        let indexes = try await session.store.commit(TrustChange())
        #expect(indexes.isEmpty)
        #expect(try await session.store.auditCount() == 0)
    }

    static func migrateTwice(_ session: StoreSession) async throws {
        let store = session.store
        let wallet = try Fixtures.wallet()
        var change = TrustChange()
        change.registrations = [wallet]
        change.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(.registration, agent: wallet.csiGuid.rawValue))]
        try await store.commit(change)
        try await store.migrate()
        try await store.migrate()
        #expect(try await store.registration(wallet.csiGuid) == wallet)
        #expect(try await store.auditCount() == 1)
        // A second store on the same database migrates too, and indexes go on from 1.
        let second = try await session.reopen()
        var next = TrustChange()
        next.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "after-migrate"))]
        #expect(try await second.commit(next) == [1])
    }

    // MARK: Identities

    static func registrationsRoundTrip(_ session: StoreSession) async throws {
        let store = session.store
        let wallet = try Fixtures.wallet()
        let app = try Fixtures.app()
        let guid = Fixtures.csi()
        var change = TrustChange()
        change.issuedGuids = [IssuedGuid(guid: guid, issuedAt: Fixtures.t0), IssuedGuid(guid: wallet.csiGuid, issuedAt: Fixtures.t0)]
        change.registrations = [wallet, app]
        try await store.commit(change)
        // The same GUID handed out again is not an error.
        var again = TrustChange()
        again.issuedGuids = [IssuedGuid(guid: guid, issuedAt: Fixtures.t0.adding(seconds: 1))]
        try await store.commit(again)

        #expect(try await store.isIssuedGuid(guid))
        #expect(try await store.isIssuedGuid(wallet.csiGuid))
        #expect(try await store.isIssuedGuid(app.csiGuid) == false)
        let readWallet = try #require(try await store.registration(wallet.csiGuid))
        #expect(readWallet == wallet)
        #expect(readWallet.claims == wallet.claims)
        #expect(readWallet.publicKey.spkiDER == wallet.publicKey.spkiDER)
        #expect(readWallet.registeredAt == wallet.registeredAt)
        #expect(readWallet.isWallet)
        #expect(try await store.registration(app.csiGuid) == app)
        #expect(Set(try await store.registrations()) == [wallet, app])
    }

    static func duplicateRegistration(_ session: StoreSession) async throws {
        let store = session.store
        let first = try Fixtures.wallet(key: 0)
        var change = TrustChange()
        change.registrations = [first]
        try await store.commit(change)

        let other = try Fixtures.app()
        let stranger = Fixtures.csi()
        let permission = Fixtures.rootPermission(patient: first.csiGuid, grantee: other.csiGuid)
        let token = try Fixtures.token(client: other.csiGuid, patient: first.csiGuid, permissions: [permission.id])
        var duplicate = TrustChange()
        duplicate.issuedGuids = [IssuedGuid(guid: stranger, issuedAt: Fixtures.t0)]
        duplicate.registrations = [other, try Fixtures.wallet(first.csiGuid, key: 2)]
        duplicate.permissions = [permission]
        duplicate.tokens = [token]
        duplicate.resources = [FHIRResourceWrite(record: Fixtures.resource(type: "Patient", id: "p", patient: first.csiGuid, version: 1))]
        duplicate.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(.registration, agent: "dup"), signatureDigest: "d1")]
        duplicate.checkpoints = [StoredCheckpoint(treeSize: 1, note: "note")]
        await #expect(throws: TrustStoreError.alreadyRegistered(first.csiGuid.rawValue)) {
            try await store.commit(duplicate)
        }
        // The first binding stands; nothing of the failed change was stored.
        #expect(try await store.registration(first.csiGuid)?.publicKey == first.publicKey)
        #expect(try await store.registration(other.csiGuid) == nil)
        #expect(try await store.registrations() == [first])
        #expect(try await store.isIssuedGuid(stranger) == false)
        #expect(try await store.permissions().isEmpty)
        #expect(try await store.token(hash: token.tokenHash) == nil)
        #expect(try await store.resource(patient: first.csiGuid, type: "Patient", id: "p") == nil)
        #expect(try await store.auditCount() == 0)
        #expect(try await store.auditRecords(signatureDigest: "d1").isEmpty)
        #expect(try await store.checkpoints().isEmpty)
        // The log goes on from 0.
        var next = TrustChange()
        next.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "next"))]
        #expect(try await store.commit(next) == [0])
    }

    static func duplicateWithinChange(_ session: StoreSession) async throws {
        let store = session.store
        let csi = Fixtures.csi()
        var change = TrustChange()
        change.registrations = [try Fixtures.wallet(csi, key: 0), try Fixtures.wallet(csi, key: 1)]
        await #expect(throws: TrustStoreError.alreadyRegistered(csi.rawValue)) {
            try await store.commit(change)
        }
        #expect(try await store.registration(csi) == nil)
    }

    // MARK: Permissions

    static func permissionsRoundTrip(_ session: StoreSession) async throws {
        let store = session.store
        let patient = Fixtures.csi()
        let doctor = Fixtures.csi()
        let app = Fixtures.csi()
        let root = Fixtures.rootPermission(patient: patient, grantee: doctor)
        let delegated = try Fixtures.delegated(from: root, to: app)
        var preRevoked = try Fixtures.delegated(from: root, to: Fixtures.csi())
        preRevoked.revokedAt = Fixtures.t0.adding(seconds: 5)
        var change = TrustChange()
        change.permissions = [root, delegated, preRevoked]
        try await store.commit(change)
        let read = try await store.permissions()
        #expect(read.count == 3)
        #expect(Set(read) == [root, delegated, preRevoked])
        let readRoot = try #require(read.first { $0.id == root.id })
        #expect(readRoot.window == .always)
        #expect(readRoot.parent == nil)
        #expect(readRoot.scope == .owner)
        let readDelegated = try #require(read.first { $0.id == delegated.id })
        #expect(readDelegated.parent == root.id)
        #expect(readDelegated.scope == delegated.scope)
        #expect(readDelegated.revokedAt == nil)
    }

    static func revocationKeepsFirstTime(_ session: StoreSession) async throws {
        let store = session.store
        let patient = Fixtures.csi()
        let root = Fixtures.rootPermission(patient: patient, grantee: Fixtures.csi())
        let other = Fixtures.rootPermission(patient: patient, grantee: Fixtures.csi())
        let first = Fixtures.t0.adding(seconds: 10)
        var change = TrustChange()
        change.permissions = [root, other]
        try await store.commit(change)

        var revoke = TrustChange()
        revoke.revocations = [PermissionRevocation(id: root.id, revokedAt: first), PermissionRevocation(id: PermissionID("unknown"), revokedAt: first)]
        try await store.commit(revoke)
        var again = TrustChange()
        again.revocations = [PermissionRevocation(id: root.id, revokedAt: first.adding(seconds: 50))]
        try await store.commit(again)
        var earlier = TrustChange()
        earlier.revocations = [PermissionRevocation(id: root.id, revokedAt: Fixtures.t0)]
        try await store.commit(earlier)

        let read = try await store.permissions()
        #expect(read.first { $0.id == root.id }?.revokedAt == first)
        #expect(read.first { $0.id == other.id }?.revokedAt == nil)
        #expect(read.count == 2)

        // Granted and revoked in one change.
        let brief = Fixtures.rootPermission(patient: patient, grantee: Fixtures.csi())
        var both = TrustChange()
        both.permissions = [brief]
        both.revocations = [PermissionRevocation(id: brief.id, revokedAt: first)]
        try await store.commit(both)
        #expect(try await store.permissions().first { $0.id == brief.id }?.revokedAt == first)
    }

    static func ledgerVersionRises(_ session: StoreSession) async throws {
        let store = session.store
        let start = try await store.ledgerVersion()
        let root = Fixtures.rootPermission(patient: Fixtures.csi(), grantee: Fixtures.csi())
        var grant = TrustChange()
        grant.permissions = [root]
        try await store.commit(grant)
        let granted = try await store.ledgerVersion()
        #expect(granted > start)
        // Audit entries alone leave the ledger (and its version) as it was.
        var audit = TrustChange()
        audit.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .permissionsListed, recorded: Fixtures.t0, agent: "a"))]
        try await store.commit(audit)
        #expect(try await store.ledgerVersion() == granted)
        var revoke = TrustChange()
        revoke.revocations = [PermissionRevocation(id: root.id, revokedAt: Fixtures.t0.adding(seconds: 1))]
        try await store.commit(revoke)
        #expect(try await store.ledgerVersion() > granted)
    }

    // MARK: Tokens

    static func tokensRoundTrip(_ session: StoreSession) async throws {
        let store = session.store
        let client = Fixtures.csi()
        let patient = Fixtures.csi()
        let token = try Fixtures.token(client: client, patient: patient, permissions: [PermissionID("a"), PermissionID("b")])
        let bare = try Fixtures.token(client: client, patient: patient, permissions: [])
        var change = TrustChange()
        change.tokens = [token, bare]
        try await store.commit(change)
        let read = try #require(try await store.token(hash: token.tokenHash))
        #expect(read == token)
        #expect(read.scope == token.scope)
        #expect(read.permissionIDs == [PermissionID("a"), PermissionID("b")])
        #expect(read.revoked == false)
        #expect(try await store.token(hash: bare.tokenHash) == bare)

        var revoke = TrustChange()
        revoke.revokedTokenHashes = [token.tokenHash, "no-such-hash"]
        try await store.commit(revoke)
        #expect(try await store.token(hash: token.tokenHash)?.revoked == true)
        #expect(try await store.token(hash: bare.tokenHash)?.revoked == false)
    }

    // MARK: Resources

    static func ledgerVersionAndResource(_ session: StoreSession) async throws {
        let store = session.store
        let patient = Fixtures.csi()
        let start = try await store.ledgerVersionAndResource(patient: patient, type: "Observation", id: "bp-1")
        #expect(start.ledgerVersion == (try await store.ledgerVersion()))
        #expect(start.resource == nil)
        let v1 = Fixtures.resource(type: "Observation", id: "bp-1", patient: patient, version: 1)
        var create = TrustChange()
        create.resources = [FHIRResourceWrite(record: v1)]
        create.permissions = [Fixtures.rootPermission(patient: patient, grantee: Fixtures.csi())]
        try await store.commit(create)
        let both = try await store.ledgerVersionAndResource(patient: patient, type: "Observation", id: "bp-1")
        #expect(both.ledgerVersion == (try await store.ledgerVersion()))
        #expect(both.ledgerVersion > start.ledgerVersion)
        #expect(both.resource == v1)
        #expect(both.resource?.json == v1.json)
        // Another compartment, another type, another id: not found, the version all the same.
        for (owner, type, id) in [(Fixtures.csi(), "Observation", "bp-1"), (patient, "Condition", "bp-1"), (patient, "Observation", "bp-2")] {
            let missing = try await store.ledgerVersionAndResource(patient: owner, type: type, id: id)
            #expect(missing.resource == nil)
            #expect(missing.ledgerVersion == both.ledgerVersion)
        }
    }

    static func resourceVersions(_ session: StoreSession) async throws {
        let store = session.store
        let patient = Fixtures.csi()
        let v1 = Fixtures.resource(type: "Observation", id: "bp-1", patient: patient, version: 1)
        var create = TrustChange()
        create.resources = [FHIRResourceWrite(record: v1)]
        try await store.commit(create)
        #expect(try await store.resource(patient: patient, type: "Observation", id: "bp-1") == v1)

        let v2 = Fixtures.resource(type: "Observation", id: "bp-1", patient: patient, version: 2)
        var update = TrustChange()
        update.resources = [FHIRResourceWrite(record: v2)]
        try await store.commit(update)
        let read = try #require(try await store.resource(patient: patient, type: "Observation", id: "bp-1"))
        #expect(read == v2)
        #expect(read.versionID == 2)
        #expect(read.json == v2.json)

        // Stale versions conflict, and the change they are in is not applied.
        for stale in [1, 2, 4] {
            var conflicting = TrustChange()
            conflicting.resources = [FHIRResourceWrite(record: Fixtures.resource(type: "Observation", id: "bp-1", patient: patient, version: stale))]
            conflicting.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "stale-\(stale)"))]
            await #expect(throws: TrustStoreError.conflict("Observation/bp-1")) {
                try await store.commit(conflicting)
            }
        }
        #expect(try await store.resource(patient: patient, type: "Observation", id: "bp-1") == v2)
        #expect(try await store.auditCount() == 0)
        // Version 1 of an unknown resource is the only way to create it.
        var skip = TrustChange()
        skip.resources = [FHIRResourceWrite(record: Fixtures.resource(type: "Observation", id: "new", patient: patient, version: 2))]
        await #expect(throws: TrustStoreError.conflict("Observation/new")) { try await store.commit(skip) }
        #expect(try await store.resource(patient: patient, type: "Observation", id: "new") == nil)
        // Same id, other type: another resource.
        var otherType = TrustChange()
        otherType.resources = [FHIRResourceWrite(record: Fixtures.resource(type: "Condition", id: "bp-1", patient: patient, version: 1))]
        try await store.commit(otherType)
        #expect(try await store.resource(patient: patient, type: "Condition", id: "bp-1")?.versionID == 1)
        #expect(try await store.resource(patient: patient, type: "Observation", id: "bp-1")?.versionID == 2)
        // Same type and id in another patient's compartment: another resource, and invisible
        // from the first compartment.
        let other = Fixtures.csi()
        var otherPatient = TrustChange()
        otherPatient.resources = [FHIRResourceWrite(record: Fixtures.resource(type: "Observation", id: "bp-1", patient: other, version: 1))]
        try await store.commit(otherPatient)
        #expect(try await store.resource(patient: other, type: "Observation", id: "bp-1")?.versionID == 1)
        #expect(try await store.resource(patient: patient, type: "Observation", id: "bp-1")?.versionID == 2)
        #expect(try await store.resources(patient: patient, type: "Observation").map(\.patient).allSatisfy { $0 == patient })
    }

    static func resourceConcurrentWrites(_ session: StoreSession) async throws {
        let store = session.store
        let patient = Fixtures.csi()
        for version in 1...2 {
            let outcomes = await withTaskGroup(of: Result<Void, TrustStoreError>.self) { group in
                for writer in 0..<6 {
                    group.addTask {
                        var change = TrustChange()
                        var record = Fixtures.resource(type: "Observation", id: "race", patient: patient, version: version)
                        record.json = Array("writer \(writer)".utf8)
                        change.resources = [FHIRResourceWrite(record: record)]
                        change.auditEntries = [PendingAuditEntry(entry: Fixtures.auditEntry(agent: "writer-\(writer)"))]
                        do throws(TrustStoreError) {
                            try await store.commit(change)
                            return .success(())
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                var outcomes: [Result<Void, TrustStoreError>] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let failures = outcomes.compactMap { outcome -> TrustStoreError? in
                if case .failure(let error) = outcome { return error }
                return nil
            }
            #expect(outcomes.count - failures.count == 1, "version \(version)")
            #expect(failures == Array(repeating: .conflict("Observation/race"), count: 5), "version \(version)")
            #expect(try await store.resource(patient: patient, type: "Observation", id: "race")?.versionID == version)
            // Only the winner's audit entry was kept.
            #expect(try await store.auditCount() == version)
        }
    }

    static func resourcesByPatient(_ session: StoreSession) async throws {
        let store = session.store
        let patient = Fixtures.csi()
        let other = Fixtures.csi()
        var change = TrustChange()
        change.resources = [
            ("Observation", "b", patient), ("Observation", "a", patient), ("Condition", "z", patient),
            ("Observation", "B", patient), ("Observation", "c", other), ("AllergyIntolerance", "1", patient),
        ].map { FHIRResourceWrite(record: Fixtures.resource(type: $0.0, id: $0.1, patient: $0.2, version: 1)) }
        try await store.commit(change)
        let all = try await store.resources(patient: patient, type: nil)
        #expect(all.map { "\($0.type)/\($0.id)" } == ["AllergyIntolerance/1", "Condition/z", "Observation/B", "Observation/a", "Observation/b"])
        let observations = try await store.resources(patient: patient, type: "Observation")
        #expect(observations.map(\.id) == ["B", "a", "b"])
        #expect(observations.allSatisfy { $0.patient == patient })
        #expect(try await store.resources(patient: other, type: "Observation").map(\.id) == ["c"])
        #expect(try await store.resources(patient: other, type: "Condition").isEmpty)
    }

    /// Random compartments (ids of mixed case, digits, `-` and `.`, several types, another
    /// patient's resources beside them) read a page at a time with random limits: the pages
    /// joined are the compartment in (type, id) byte order, each page starts right after its
    /// cursor, and no page is longer than asked.
    static func compartmentPages(_ session: StoreSession) async throws {
        let store = session.store
        var generator = SplitMix64(seed: 0xE7E2)
        let types = ["AllergyIntolerance", "Condition", "Immunization", "Observation", "observation"]
        let idBytes = Array("AZaz09-.bB".utf8)
        for _ in 0..<4 {
            let patient = Fixtures.csi(), other = Fixtures.csi()
            var keys = Set<String>()
            var change = TrustChange()
            for _ in 0..<generator.int(0...60) {
                let type = types[generator.below(types.count)]
                let id = String(decoding: (0..<generator.int(1...4)).map { _ in idBytes[generator.below(idBytes.count)] }, as: UTF8.self)
                let owner = generator.chance(0.2) ? other : patient
                guard keys.insert("\(owner.rawValue) \(type)/\(id)").inserted else { continue }
                change.resources.append(FHIRResourceWrite(record: Fixtures.resource(type: type, id: id, patient: owner, version: 1)))
            }
            if !change.resources.isEmpty { try await store.commit(change) }
            let expected = change.resources.map(\.record).filter { $0.patient == patient }.sorted { a, b in
                a.type == b.type ? a.id.utf8.lexicographicallyPrecedes(b.id.utf8) : a.type.utf8.lexicographicallyPrecedes(b.type.utf8)
            }.map { "\($0.type)/\($0.id)" }
            var seen: [String] = []
            var after: (type: String, id: String)?
            var reads = 0
            while reads < 200 {
                reads += 1
                let limit = generator.int(1...9)
                let page = try await store.resources(patient: patient, after: after, limit: limit)
                #expect(page.count <= limit && page.allSatisfy { $0.patient == patient && $0.versionID == 1 })
                seen += page.map { "\($0.type)/\($0.id)" }
                guard let last = page.last, page.count == limit else { break }
                after = (last.type, last.id)
            }
            #expect(seen == expected)
            #expect(try await store.resources(patient: patient, after: nil, limit: 0).isEmpty)
            // A cursor that is not a stored resource pages from the next one in order.
            if let type = expected.first?.split(separator: "/").first.map(String.init) {
                let page = try await store.resources(patient: patient, after: (type, ""), limit: 1000)
                #expect(page.map { "\($0.type)/\($0.id)" } == expected)
            }
        }
    }
}
