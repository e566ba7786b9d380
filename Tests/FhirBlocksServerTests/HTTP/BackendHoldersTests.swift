import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// Issue 38: where a SMART backend token's read by id goes, on every store. The holders of an
/// id among the granting patients come from one store read (``ResourceStore/resourceHolders(type:id:among:)``,
/// deleted resources included, hundreds of patients at once); two granting patients holding a
/// copy the token may see answer 409 (audited `ambiguous`), a copy it may not see changes no
/// answer; a deleted resource answers 410 as to the patient's token; a Patient id the token may
/// not see answers as an unknown one.
@Suite struct BackendHoldersTests {
    typealias Logged = AuditedWaysInTests.Logged

    @Test(arguments: TestBackend.available)
    func theHoldersOfAnIdAmongManyPatientsComeFromOneRead(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        try await withTeardown({ await world.close() }) {
            var generator = SystemRandomNumberGenerator()
            // 600 patients: more than one SQLite list (512).
            let patients = (0..<600).map { _ in CsiGuid.random(using: &generator) }
            let sorted = patients.sorted { $0.rawValue < $1.rawValue }
            let holding = [sorted[3], sorted[515], sorted[599]]
            let elsewhere = CsiGuid.random(using: &generator)
            var change = TrustChange()
            for patient in holding + [elsewhere] {
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: "Observation", id: "x", patient: patient, versionID: 1, lastUpdated: world.now,
                    json: BulkExportTests.resource("Observation", "x", label: nil))))
            }
            // The same id of another type, and another id, held by others.
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                type: "Condition", id: "x", patient: sorted[10], versionID: 1, lastUpdated: world.now,
                json: BulkExportTests.resource("Condition", "x", label: nil))))
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                type: "Observation", id: "y", patient: sorted[11], versionID: 1, lastUpdated: world.now,
                json: BulkExportTests.resource("Observation", "y", label: nil))))
            try await world.store.commit(change)
            // sorted[515]'s copy is deleted: it still holds it (its history does).
            let current = try #require(try await world.store.resource(patient: sorted[515], type: "Observation", id: "x"))
            var deletion = TrustChange()
            deletion.resources = [FHIRResourceWrite.deletion(of: current, at: world.now.adding(seconds: 1))]
            try await world.store.commit(deletion)
            #expect(try await world.store.resource(patient: sorted[515], type: "Observation", id: "x") == nil)

            #expect(try await world.store.resourceHolders(type: "Observation", id: "x", among: patients) == holding)
            #expect(try await world.store.resourceHolders(type: "Observation", id: "x", among: patients + patients) == holding)
            #expect(try await world.store.resourceHolders(type: "Observation", id: "x", among: [sorted[599], elsewhere]) == [sorted[599], elsewhere]
                .sorted { $0.rawValue < $1.rawValue })
            #expect(try await world.store.resourceHolders(type: "Condition", id: "x", among: patients) == [sorted[10]])
            #expect(try await world.store.resourceHolders(type: "Observation", id: "y", among: Array(sorted[12...])).isEmpty)
            #expect(try await world.store.resourceHolders(type: "Observation", id: "nope", among: patients).isEmpty)
            #expect(try await world.store.resourceHolders(type: "Observation", id: "x", among: []).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func twoHoldersConflictAHiddenCopyChangesNothingADeletionIsGoneAndAHiddenPatientIsUnknown(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            // w1 grants the client its Observations up to N (AuditedWaysInTests.backendWorld); w1 and w2 also its
            // Patients up to N, w2 its Observations up to N.
            let (wallets, client, token) = try await AuditedWaysInTests.backendWorld(world, server)
            var party = TestParty.app("backend")
            party.csi = client
            for (wallet, resource) in [(wallets[0], "Patient"), (wallets[1], "Observation"), (wallets[1], "Patient")] {
                #expect(try await world.grant(from: wallet, to: [party], resource: resource, confidentiality: "N", sensitivity: []).status == 200)
            }
            let (w1, w2) = (wallets[0].csi, wallets[1].csi)
            var change = TrustChange()
            func put(_ type: String, _ id: String, _ patient: CsiGuid, label: String? = nil) {
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: type, id: id, patient: patient, versionID: 1, lastUpdated: world.now, json: BulkExportTests.resource(type, id, label: label))))
            }
            put("Observation", "dup", w1)
            put("Observation", "dup", w2)
            put("Observation", "half", w1, label: "R")   // hidden from the client
            put("Observation", "half", w2)
            put("Patient", "dup-p", w1)
            put("Patient", "dup-p", w2)
            put("Patient", "vp", w1)
            put("Patient", "hp", w1, label: "R")          // hidden from the client
            try await world.store.commit(change)
            func refused(_ resources: [String], _ reason: String) -> Logged {
                Logged(agent: client.rawValue, patient: client.rawValue, outcome: .minorFailure, resources: resources, reason: reason)
            }
            var tail = try await AuditedWaysInTests.AuditTail(world.store)

            // Two granting patients hold Observation/dup visibly: 409 for the read, vread and history, audited refused.
            for path in ["Observation/dup", "Observation/dup/_history/1", "Observation/dup/_history"] {
                let answer = try await AuditedWaysInTests.send(server, .GET, path, token: token)
                #expect(answer.status == 409 && answer.json["resourceType"] == .string("OperationOutcome") && answer.text.contains("patient="),
                        "\(path): \(answer.text)")
                try await AuditedWaysInTests.check(&tail, [refused(["Observation/dup"], "ambiguous")], path)
            }
            let dupEverything = try await AuditedWaysInTests.send(server, .GET, "Patient/dup-p/$everything", token: token)
            #expect(dupEverything.status == 409, "\(dupEverything.text)")
            try await AuditedWaysInTests.check(&tail, [refused(["Patient/dup-p"], "ambiguous")])
            // Each is still reached by naming its patient.
            let named = try await AuditedWaysInTests.send(server, .GET, "Observation?_id=dup&patient=\(w2.rawValue)", token: token)
            #expect(named.status == 200 && AuditedWaysInTests.resources(named.json) == ["Observation/dup"], "\(named.text)")
            try await AuditedWaysInTests.check(&tail, [Logged(agent: client.rawValue, patient: w2.rawValue, resources: ["Observation/dup"])])

            // w1's hidden copy of Observation/half changes nothing: w2's is read, as if w1 held none.
            let half = try await AuditedWaysInTests.send(server, .GET, "Observation/half", token: token)
            #expect(half.status == 200 && half.json["id"] == .string("half") && half.json["meta"]?.objectValue?["security"] == nil, "\(half.text)")
            try await AuditedWaysInTests.check(&tail, [Logged(agent: client.rawValue, patient: w2.rawValue, resources: ["Observation/half"])])
            let halfHistory = try await AuditedWaysInTests.send(server, .GET, "Observation/half/_history", token: token)
            #expect(halfHistory.status == 200, "\(halfHistory.text)")
            try await AuditedWaysInTests.check(&tail, [Logged(agent: client.rawValue, patient: w2.rawValue, resources: ["Observation/half/_history/1"])])

            // A Patient id the client may not see ($everything, patient= search) answers as an unknown one; a visible one is reached.
            let visiblePatient = try await AuditedWaysInTests.send(server, .GET, "Patient/vp/$everything", token: token)
            #expect(visiblePatient.status == 200, "\(visiblePatient.text)")
            _ = try await tail.logged()
            let unknown = try await AuditedWaysInTests.send(server, .GET, "Patient/nope/$everything", token: token)
            #expect(unknown.status == 404)
            try await AuditedWaysInTests.check(&tail, [refused(["Patient/nope"], "not-found")])
            let hidden = try await AuditedWaysInTests.send(server, .GET, "Patient/hp/$everything", token: token)
            #expect(AuditedWaysInTests.sameAsAbsent(hidden, unknown, id: "Patient/hp", absentID: "Patient/nope"), "\(hidden.text)")
            try await AuditedWaysInTests.check(&tail, [refused(["Patient/hp"], "not-found")])
            // The same for the patient's own token that may not see it (up to N).
            let patientToken = try #require(world.json(try await world.clientCredentials(wallets[0], scope: "patient/*.rs conf/N"))["access_token"]?
                .stringValue)
            let ownVisible = try await AuditedWaysInTests.send(server, .GET, "Patient/vp/$everything", token: patientToken)
            let ownHidden = try await AuditedWaysInTests.send(server, .GET, "Patient/hp/$everything", token: patientToken)
            let ownUnknown = try await AuditedWaysInTests.send(server, .GET, "Patient/nope/$everything", token: patientToken)
            #expect(ownVisible.status == 200 && ownUnknown.status == 404, "\(ownVisible.text) \(ownUnknown.text)")
            #expect(AuditedWaysInTests.sameAsAbsent(ownHidden, ownUnknown, id: "Patient/hp", absentID: "Patient/nope"), "\(ownHidden.text)")
            for (id, count) in [("vp", 1), ("hp", 0)] {
                let search = try await AuditedWaysInTests.send(server, .GET, "Observation?patient=Patient/\(id)", token: patientToken)
                #expect(search.status == 200 && (search.json["entry"]?.arrayValue?.count ?? 0) >= count, "\(id): \(search.text)")
                if count == 0 { #expect(search.json["entry"] == nil, "\(search.text)") }
            }
            _ = try await tail.logged()

            // w1 deletes obs-1: the client's read is 410 as the patient's token's (audited under w1, deleted); its history is still read.
            let owner = try #require(world.json(try await world.clientCredentials(wallets[0], scope: "patient/*.cruds conf/V"))["access_token"]?
                .stringValue)
            let delete = try await AuditedWaysInTests.send(server, .DELETE, "Observation/obs-1", token: owner)
            try #require(delete.status == 200 || delete.status == 204, "\(delete.text)")
            _ = try await tail.logged()
            let gone = try await AuditedWaysInTests.send(server, .GET, "Observation/obs-1", token: token)
            #expect(gone.status == 410, "\(gone.text)")
            try await AuditedWaysInTests.check(&tail, [Logged(agent: client.rawValue, patient: w1.rawValue, outcome: .minorFailure,
                                                              resources: ["Observation/obs-1"], reason: "deleted")])
            let goneHistory = try await AuditedWaysInTests.send(server, .GET, "Observation/obs-1/_history", token: token)
            #expect(goneHistory.status == 200, "\(goneHistory.text)")
        }
    }
}
