import FhirBlocks
import FhirBlocksStore
import Testing

/// Issue 33: every store keeps who wrote each resource version (``FHIRResourceWrite/writer``),
/// which `$health-cards-issue` needs to sign only what a card source wrote.
@Suite("TrustStore conformance: resource writers")
struct ResourceWriterConformanceTests {
    static var backends: [StoreBackend] { StoreBackends.postgresAvailable ? [.sqlite, .postgres] : [.sqlite] }

    @Test(arguments: backends)
    func writersAreKeptPerVersion(_ backend: StoreBackend) async throws {
        try await StoreBackends.withSession(backend) { session in
            let store = session.store
            let patient = Fixtures.csi(), other = Fixtures.csi()
            let clinic = Fixtures.csi(), wallet = Fixtures.csi()
            func write(_ id: String, version: Int, by writer: CsiGuid?, patient owner: CsiGuid = patient, type: String = "Immunization") async throws {
                var change = TrustChange()
                change.resources = [FHIRResourceWrite(record: Fixtures.resource(type: type, id: id, patient: owner, version: version), writer: writer)]
                try await store.commit(change)
            }
            try await write("a", version: 1, by: clinic)
            try await write("b", version: 1, by: wallet)
            try await write("c", version: 1, by: nil)
            try await write("a", version: 1, by: wallet, patient: other)
            try await write("p", version: 1, by: clinic, type: "Patient")
            #expect(try await store.resourceWriters(patient: patient, type: "Immunization")
                        == ["a": FHIRResourceWriter(versionID: 1, writer: clinic), "b": FHIRResourceWriter(versionID: 1, writer: wallet)])
            // A new version replaces the writer; one stored without a writer leaves the last
            // recorded one, for the version it wrote (a caller compares versions).
            try await write("a", version: 2, by: wallet)
            try await write("b", version: 2, by: nil)
            let writers = try await store.resourceWriters(patient: patient, type: "Immunization")
            #expect(writers["a"] == FHIRResourceWriter(versionID: 2, writer: wallet))
            #expect(writers["b"] == FHIRResourceWriter(versionID: 1, writer: wallet))
            // By compartment and type.
            #expect(try await store.resourceWriters(patient: other, type: "Immunization") == ["a": FHIRResourceWriter(versionID: 1, writer: wallet)])
            #expect(try await store.resourceWriters(patient: patient, type: "Patient") == ["p": FHIRResourceWriter(versionID: 1, writer: clinic)])
            #expect(try await store.resourceWriters(patient: patient, type: "Observation").isEmpty)
            // A conflicting write records nothing.
            await #expect(throws: TrustStoreError.self) { try await write("a", version: 2, by: clinic) }
            #expect(try await store.resourceWriters(patient: patient, type: "Immunization")["a"] == FHIRResourceWriter(versionID: 2, writer: wallet))
        }
    }
}
