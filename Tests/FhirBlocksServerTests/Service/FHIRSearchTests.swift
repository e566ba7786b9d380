import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Testing

/// FHIR search on the protected endpoint: R4 parameters, paging through absolute `next`
/// links, `total`, unknown parameters (listed, or refused under `Prefer: handling=strict`),
/// the compartment, the label filter, `Patient/$everything`, and the audit of every result.
@Suite struct FHIRSearchTests {
    static func observation(_ id: String, code: String, date: String, label: String? = nil) -> [UInt8] {
        let meta = label.map { #","meta":{"security":[{"system":"\#(FHIREndpointTests.confidentiality)","code":"\#($0)"}]}"# } ?? ""
        return Array((#"{"resourceType":"Observation","id":"\#(id)","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"\#(code)"}]},"# +
                      #""effectiveDateTime":"\#(date)"\#(meta)}"#).utf8)
    }

    static func ids(_ bundle: JSONObject) -> [String] {
        bundle["entry"]?.arrayValue?.compactMap { entry -> String? in
            guard entry.objectValue?["search"]?.objectValue?["mode"] == .string("match") else { return nil }
            return entry.objectValue?["resource"]?.objectValue?["id"]?.stringValue
        } ?? []
    }

    static func link(_ bundle: JSONObject, _ relation: String) -> String? {
        bundle["link"]?.arrayValue?.first { $0.objectValue?["relation"] == .string(relation) }?.objectValue?["url"]?.stringValue
    }

    /// The decoded parameters of an absolute link under the test server's base.
    static func parameters(of link: String, path: String) throws -> [(String, String)] {
        let prefix = "\(TestWorld.base)/fhir/\(path)?"
        #expect(link.hasPrefix(prefix))
        let form = try FormBody.parse(Array(link.dropFirst(prefix.count).utf8), mode: .strict, repeatsAllowed: true).value
        return form.fields.map { ($0.name, $0.value) }
    }

    @Test(arguments: TestBackend.available)
    func searchPagesFiltersAndAudits(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let otherWallet = try await world.register(.wallet("w2", firstName: "B"))
            let app = try await world.register(.app("a"))
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            let otherToken = try #require(world.json(try await world.clientCredentials(otherWallet,
                                                                                       scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            let rows: [(String, String, String, String?)] = [
                ("a", "8867-4", "2020-01-05", nil), ("b", "8867-4", "2020-02-05T10:00:00Z", nil), ("c", "8310-5", "2020-03-05", nil),
                ("d", "8867-4", "2020-04-05", "R"), ("e", "8867-4", "2021-01-01", nil), ("f", "8867-4", "2020-06", nil),
            ]
            for (id, code, date, label) in rows {
                #expect(await world.fhir("PUT", "Observation/\(id)", token: walletToken,
                                         body: Self.observation(id, code: code, date: date, label: label)).status == 201)
            }
            #expect(await world.fhir("PUT", "Observation/z", token: otherToken, body: Self.observation("z", code: "8867-4", date: "2020-01-01")).status == 201)
            #expect(try await world.grant(from: wallet, to: [app], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            let token = try await world.vacaToken(app, scope: "patient/Observation.rs conf/N")

            // Code and date range, two per page, by date: the R-labelled one is filtered out
            // and the total counts only what the token may see.
            var parameters: [(String, String)] = [("code", "http://loinc.org|8867-4"), ("date", "ge2020-01"), ("date", "lt2021"),
                                                  ("_sort", "date"), ("_count", "2")]
            var seen: [String] = []
            var pages = 0
            while true {
                let response = await world.fhir("GET", "Observation", token: token, parameters: parameters)
                #expect(response.status == 200)
                let bundle = world.json(response)
                #expect(bundle["total"] == .number("3") && bundle["type"] == .string("searchset"))
                let page = Self.ids(bundle)
                seen += page
                pages += 1
                // Each page's resources are audited before they are sent.
                let last = try #require(try await world.store.auditRecords(from: max(0, try await world.store.auditCount() - 1), limit: 1).first)
                let entry = try AuditEntry(canonicalBytes: last.canonicalBytes)
                #expect(entry.resources == page.map { "Observation/\($0)" } && entry.outcome == .success)
                guard let next = Self.link(bundle, "next"), pages < 10 else { break }
                parameters = try Self.parameters(of: next, path: "Observation")
            }
            #expect(seen == ["a", "b", "f"] && pages == 2)

            // Descending (by the latest end: 2020-06 ends after 2020-04-05), comma = OR; the other
            // compartment's resource never shows.
            let descending = world.json(await world.fhir("GET", "Observation", token: walletToken,
                                                         parameters: [("code", "8867-4,8310-5"), ("_sort", "-date")]))
            #expect(Self.ids(descending) == ["e", "f", "d", "c", "b", "a"] && Self.link(descending, "next") == nil)
            #expect(Self.link(descending, "self")?.hasPrefix("\(TestWorld.base)/fhir/Observation?") == true)

            // Unknown parameters are ignored and listed; under handling=strict they are refused.
            let lenient = world.json(await world.fhir("GET", "Observation", token: token, parameters: [("colour", "red"), ("_id", "a")]))
            #expect(Self.ids(lenient) == ["a"])
            let outcome = lenient["entry"]?.arrayValue?.last?.objectValue
            #expect(outcome?["search"]?.objectValue?["mode"] == .string("outcome"))
            #expect(outcome?["resource"]?.objectValue?["issue"]?.arrayValue?.first?.objectValue?["diagnostics"]?.stringValue?.contains("colour") == true)
            // No match and an unknown parameter: the outcome is the only entry; no match and
            // nothing ignored: no "entry" at all (FHIR JSON has no empty arrays).
            let onlyOutcome = world.json(await world.fhir("GET", "Observation", token: token, parameters: [("colour", "red"), ("_id", "none")]))
            #expect(onlyOutcome["total"] == .number("0") && Self.ids(onlyOutcome).isEmpty)
            #expect(onlyOutcome["entry"]?.arrayValue?.count == 1)
            #expect(onlyOutcome["entry"]?.arrayValue?.first?.objectValue?["search"]?.objectValue?["mode"] == .string("outcome"))
            let empty = world.json(await world.fhir("GET", "Observation", token: token, parameters: [("_id", "none")]))
            #expect(empty["resourceType"] == .string("Bundle") && empty["total"] == .number("0") && empty["entry"] == nil)
            let strict = await world.fhir("GET", "Observation", token: token, parameters: [("colour", "red")], headers: ["prefer": "handling=strict"])
            #expect(strict.status == 400 && world.json(strict)["resourceType"] == .string("OperationOutcome"))
            #expect(await world.fhir("GET", "Observation", token: token, parameters: [("date", "yesterday")]).status == 400)

            // The token's own patient by csiGuid, and another patient's compartment (empty).
            let own = world.json(await world.fhir("GET", "Observation", token: token, parameters: [("patient", "Patient/\(wallet.csi.rawValue)")]))
            #expect(own["total"] == .number("5"))
            let outside = world.json(await world.fhir("GET", "Observation", token: token, parameters: [("patient", otherWallet.csi.rawValue)]))
            #expect(outside["total"] == .number("0") && Self.ids(outside).isEmpty)

            // $everything: the compartment's resources the token may read; another patient's is 404.
            let everything = await world.fhir("GET", "Patient/\(wallet.csi.rawValue)/$everything", token: token)
            #expect(everything.status == 200 && Set(Self.ids(world.json(everything))) == ["a", "b", "c", "e", "f"])
            #expect(world.json(everything)["total"] == .number("5"))
            // Paged: two per page in (type, id) order through `next` links, the filtered one
            // skipped, no page repeated; `total` only when one page holds everything.
            let everythingPath = "Patient/\(wallet.csi.rawValue)/$everything"
            var everythingParameters: [(String, String)] = [("_count", "2")]
            var everythingPages: [[String]] = []
            while everythingPages.count < 10 {
                let response = await world.fhir("GET", everythingPath, token: token, parameters: everythingParameters)
                #expect(response.status == 200)
                let bundle = world.json(response)
                #expect(bundle["total"] == nil)
                everythingPages.append(Self.ids(bundle))
                guard let next = Self.link(bundle, "next") else { break }
                everythingParameters = try Self.parameters(of: next, path: everythingPath)
            }
            #expect(everythingPages == [["a", "b"], ["c", "e"], ["f"]])
            #expect(await world.fhir("GET", everythingPath, token: token, parameters: [("_cursor", "Observation/../x y")]).status == 400)
            #expect(await world.fhir("GET", "Patient/\(otherWallet.csi.rawValue)/$everything", token: token).status == 404)
        }
    }
}
