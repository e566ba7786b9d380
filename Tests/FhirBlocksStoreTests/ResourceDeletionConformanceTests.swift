import FhirBlocks
import FhirBlocksStore
import Testing

/// Issue 38: a deletion (``FHIRResourceWrite/deletion(of:at:)``) removes a resource's current
/// version, its search index rows and its recorded writer, and is kept as the next version in
/// the history; a write that follows the deletion creates the resource again. Both stores.
@Suite("TrustStore conformance: resource deletion")
struct ResourceDeletionConformanceTests {
    static var backends: [StoreBackend] { StoreBackends.postgresAvailable ? [.sqlite, .postgres] : [.sqlite] }

    static func immunization(_ id: String, patient: CsiGuid, version: Int, status: String, second: Int64? = nil) -> FHIRResourceRecord {
        let json = #"{"resourceType":"Immunization","id":"\#(id)","meta":{"versionId":"\#(version)"},"status":"\#(status)"}"#
        return FHIRResourceRecord(type: "Immunization", id: id, patient: patient, versionID: version,
                                  lastUpdated: Fixtures.t0.adding(seconds: second ?? Int64(version)), json: Array(json.utf8))
    }

    @Test(arguments: backends)
    func aDeletionIsTheNextVersionAndLeavesNothingCurrent(_ backend: StoreBackend) async throws {
        try await StoreBackends.withSession(backend) { session in
            let store = session.store
            let history = try #require(store as? any ResourceHistoryStore)
            let patient = Fixtures.csi(), writer = Fixtures.csi()
            func commit(_ writes: [FHIRResourceWrite]) async throws {
                var change = TrustChange()
                change.resources = writes
                try await store.commit(change)
            }
            func found(_ status: String) async throws -> [String] {
                let query = try SearchQuery(type: "Immunization", parameters: [(name: "status", value: status)], strict: true)
                return try await store.search(query, patient: patient) { _ in true }.records.map(\.id)
            }
            let first = Self.immunization("a", patient: patient, version: 1, status: "completed")
            let second = Self.immunization("a", patient: patient, version: 2, status: "not-done")
            let other = Self.immunization("b", patient: patient, version: 1, status: "completed")
            try await commit([FHIRResourceWrite(record: first, writer: writer), FHIRResourceWrite(record: other)])
            try await commit([FHIRResourceWrite(record: second, writer: writer)])
            #expect(try await found("not-done") == ["a"])

            // A deletion of a version that is not the current one conflicts and changes nothing.
            await #expect(throws: TrustStoreError.self) { try await commit([FHIRResourceWrite.deletion(of: first, at: Fixtures.t0.adding(seconds: 9))]) }
            #expect(try await store.resource(patient: patient, type: "Immunization", id: "a")?.versionID == 2)

            let deletion = FHIRResourceWrite.deletion(of: second, at: Fixtures.t0.adding(seconds: 10))
            #expect(deletion.record.versionID == 3 && deletion.record.isDeletion)
            try await commit([deletion])
            #expect(try await store.resource(patient: patient, type: "Immunization", id: "a") == nil)
            #expect(try await store.resources(patient: patient, type: "Immunization").map(\.id) == ["b"])
            #expect(try await found("not-done").isEmpty)
            #expect(try await found("completed") == ["b"])
            #expect(try await store.resourceWriters(patient: patient, type: "Immunization")["a"] == nil)
            let versions = try await history.resourceHistory(patient: patient, type: "Immunization", id: "a", after: nil, limit: 10)
            #expect(versions.map(\.versionID) == [3, 2, 1] && versions.map(\.isDeletion) == [true, false, false])
            #expect(try await history.resourceVersion(patient: patient, type: "Immunization", id: "a", version: 2)?.json == second.json)
            // Deleting again conflicts (there is no current version).
            await #expect(throws: TrustStoreError.self) { try await commit([FHIRResourceWrite.deletion(of: second, at: Fixtures.t0.adding(seconds: 11))]) }

            // Written again after the deletion: version 4, current and indexed; a second such write conflicts.
            let again = Self.immunization("a", patient: patient, version: 4, status: "completed", second: 20)
            try await commit([FHIRResourceWrite(record: again, writer: writer, followsDeletion: true)])
            #expect(try await store.resource(patient: patient, type: "Immunization", id: "a") == again)
            #expect(Set(try await found("completed")) == ["a", "b"])
            #expect(try await store.resourceWriters(patient: patient, type: "Immunization")["a"] == FHIRResourceWriter(versionID: 4, writer: writer))
            await #expect(throws: TrustStoreError.self) {
                try await commit([FHIRResourceWrite(record: again, followsDeletion: true)])
            }
            #expect(try await history.resourceHistory(patient: patient, type: "Immunization", id: "a", after: nil, limit: 10).map(\.versionID) == [4, 3, 2, 1])
        }
    }
}
