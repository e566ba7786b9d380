import ExactJSON
import FhirBlocks
import FhirBlocksServer
import FhirBlocksStore
import Testing
import TestSupport

/// `Patient/{id}/$everything` paged in the store, as a property: for random compartments
/// (several types, ids of mixed case, security labels, another patient's resources beside them)
/// and random grants and scopes, following the `next` links with a random `_count` yields
/// exactly the compartment's resources the token may read by id, in (type, id) byte order, each
/// once; `total` only when one page holds them all; every page audited.
@Suite struct EverythingPagingTests {
    static let types = ["AllergyIntolerance", "Condition", "Immunization", "Observation", "Procedure"]

    static func resource(type: String, id: String, label: String?) -> [UInt8] {
        let meta = label.map { #","meta":{"security":[{"system":"\#(FHIREndpointTests.confidentiality)","code":"\#($0)"}]}"# } ?? ""
        return Array(#"{"resourceType":"\#(type)","id":"\#(id)","status":"final"\#(meta)}"#.utf8)
    }

    /// The `Type/id` of a searchset's matches, in order.
    static func keys(_ bundle: JSONObject) -> [String] {
        bundle["entry"]?.arrayValue?.compactMap { entry -> String? in
            guard let resource = entry.objectValue?["resource"]?.objectValue, let type = resource["resourceType"]?.stringValue,
                  let id = resource["id"]?.stringValue else { return nil }
            return "\(type)/\(id)"
        } ?? []
    }

    @Test(arguments: TestBackend.available)
    func randomCompartmentsGrantsAndPageSizes(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            var generator = SplitMix64(seed: 0xE7E4_0015)
            let idBytes = Array("AZaz09-.bBx".utf8)
            // The property must have been exercised: resources filtered out, and long chains of pages.
            var filtered = 0, longest = 0
            for round in 0..<4 {
                let wallet = try await world.register(.wallet("w\(round)", firstName: "A"))
                let other = try await world.register(.wallet("o\(round)", firstName: "B"))
                let app = try await world.register(.app("a\(round)"))
                // The compartment, written through the store as the FHIR endpoint writes it.
                var change = TrustChange()
                var written = Set<String>()
                for _ in 0..<generator.int(0...70) {
                    let type = Self.types[generator.below(Self.types.count)]
                    let id = String(decoding: (0..<generator.int(1...3)).map { _ in idBytes[generator.below(idBytes.count)] }, as: UTF8.self)
                    let owner = generator.chance(0.15) ? other : wallet
                    guard written.insert("\(owner.csi.rawValue) \(type)/\(id)").inserted else { continue }
                    let label = generator.chance(0.3) ? ["N", "R", "V"][generator.below(3)] : nil
                    let record = FHIRResourceRecord(type: type, id: id, patient: owner.csi, versionID: 1, lastUpdated: world.now,
                                                    json: Self.resource(type: type, id: id, label: label))
                    change.resources.append(FHIRResourceWrite(record: record))
                }
                if !change.resources.isEmpty { try await world.store.commit(change) }
                // Grants on some types (each with its own confidentiality ceiling), a scope on some
                // types (one type in both, so that a token is issued).
                var granted = Self.types.filter { _ in generator.chance(0.5) }
                var scoped = Self.types.filter { _ in generator.chance(0.6) }
                let shared = Self.types[generator.below(Self.types.count)]
                if !granted.contains(shared) { granted.append(shared) }
                if !scoped.contains(shared) { scoped.append(shared) }
                for type in granted {
                    let ceiling = ["N", "R", "V"][generator.below(3)]
                    #expect(try await world.grant(from: wallet, to: [app], resource: type, confidentiality: ceiling, sensitivity: []).status == 200)
                }
                let scope = scoped.map { "patient/\($0).rs" }.joined(separator: " ") + " conf/" + ["N", "R", "V"][generator.below(3)]
                let token = try await world.vacaToken(app, scope: scope)

                // What the token may read: each resource of the compartment asked by id.
                var expected: [String] = []
                for record in change.resources.map(\.record) where record.patient == wallet.csi {
                    if await world.fhir("GET", "\(record.type)/\(record.id)", token: token).status == 200 {
                        expected.append("\(record.type)/\(record.id)")
                    }
                }
                expected.sort { a, b in a.utf8.lexicographicallyPrecedes(b.utf8) }
                filtered += change.resources.filter { $0.record.patient == wallet.csi }.count - expected.count

                let path = "Patient/\(wallet.csi.rawValue)/$everything"
                var parameters: [(String, String)] = [("_count", String(generator.int(1...7)))]
                var seen: [String] = []
                var pages = 0
                while pages < 100 {
                    let response = await world.fhir("GET", path, token: token, parameters: parameters)
                    try #require(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
                    let bundle = world.json(response)
                    let page = Self.keys(bundle)
                    pages += 1
                    seen += page
                    let next = FHIRSearchTests.link(bundle, "next")
                    // `total` only when the first page holds everything.
                    #expect(bundle["total"] == (pages == 1 && next == nil ? .number(String(page.count)) : nil))
                    // Each page's resources are audited before they are sent.
                    let last = try #require(try await world.store.auditRecords(from: max(0, try await world.store.auditCount() - 1), limit: 1).first)
                    let entry = try AuditEntry(canonicalBytes: last.canonicalBytes)
                    #expect(entry.resources == (page.isEmpty ? ["Patient/\(wallet.csi.rawValue)"] : page) && entry.outcome == .success)
                    guard let next else { break }
                    #expect(!page.isEmpty)
                    parameters = try FHIRSearchTests.parameters(of: next, path: path)
                    // The page size changes from page to page: the cursor alone says where to go on.
                    parameters = parameters.filter { $0.0 != "_count" } + [("_count", String(generator.int(1...7)))]
                }
                #expect(seen == expected, "round \(round), scope \(scope), granted \(granted)")
                longest = max(longest, pages)
            }
            #expect(filtered > 0 && longest >= 3, "filtered \(filtered), longest chain \(longest) pages")
        }
    }
}
