import FhirBlocks
import FhirBlocksStore
import Testing
import TestSupport

/// The read by a list of ids (`TrustSQL.resources(patient:type:ids:dialect:)`, one text for
/// both databases but for how the list is matched).
extension ConformanceChecks {
    /// Lists of every length a statement boundary can fall on (none, 1, 2, 3, 511 to 513, 1,025
    /// ids), with ids given twice, ids not stored, another type's and another patient's ids:
    /// exactly the stored resources of that type and patient whose ids are listed, each once,
    /// with its stored version.
    static func resourcesByIDList(_ session: StoreSession) async throws {
        let store = session.store
        let patient = Fixtures.csi(), other = Fixtures.csi()
        var generator = SplitMix64(seed: 0x1D5)
        let stored = (0..<1_100).map { "o-\($0)" }
        var change = TrustChange()
        change.resources = stored.map { FHIRResourceWrite(record: Fixtures.resource(type: "Observation", id: $0, patient: patient, version: 1)) }
            + ["o-1", "o-2"].map { FHIRResourceWrite(record: Fixtures.resource(type: "Condition", id: $0, patient: patient, version: 1)) }
            + ["o-3", "x-1"].map { FHIRResourceWrite(record: Fixtures.resource(type: "Observation", id: $0, patient: other, version: 1)) }
        try await store.commit(change)
        var update = TrustChange()
        update.resources = [FHIRResourceWrite(record: Fixtures.resource(type: "Observation", id: "o-7", patient: patient, version: 2))]
        try await store.commit(update)

        #expect(try await store.resources(patient: patient, type: "Observation", ids: []).isEmpty)
        for count in [1, 2, 3, 511, 512, 513, 1_025] {
            var ids: [String] = []
            for _ in 0..<count {
                switch generator.int(0...9) {
                case 0: ids.append("missing-\(generator.int(0...99))")
                case 1: ids.append("x-1")   // another patient's only
                default: ids.append(stored[generator.int(0...(stored.count - 1))])
                }
            }
            let found = try await store.resources(patient: patient, type: "Observation", ids: ids)
            let expected = Set(ids.filter { $0.hasPrefix("o-") })
            #expect(found.count == expected.count, "\(count) ids")
            #expect(Set(found.map(\.id)) == expected, "\(count) ids")
            #expect(found.allSatisfy { $0.patient == patient && $0.type == "Observation" })
            #expect(found.allSatisfy { $0.versionID == ($0.id == "o-7" ? 2 : 1) })
        }
        let conditions = try await store.resources(patient: patient, type: "Condition", ids: ["o-2", "o-2", "o-5"])
        #expect(conditions.map(\.id) == ["o-2"])
        #expect(conditions.first?.json == Fixtures.resource(type: "Condition", id: "o-2", patient: patient, version: 1).json)
    }
}
