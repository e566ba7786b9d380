import Foundation
import Testing

@Suite("health records: the command-line contract")
struct RecordsCommandTests {
    static let observation = """
        {"resourceType":"Observation","id":"a1c","status":"final","code":{"text":"Hemoglobin A1c"},\
        "effectiveDateTime":"2024-03-03T08:00:00Z","valueQuantity":{"value":6.30,"unit":"%"}}
        """
    static let allergy = """
        {"resourceType":"AllergyIntolerance","id":"al1","patient":{"reference":"Patient/p1"},\
        "code":{"coding":[{"system":"http://snomed.info/sct","code":"91936005","display":"Allergy to penicillin"}]},"recordedDate":"2019-05-01"}
        """
    static let patient = #"{"resourceType":"Patient","id":"p1"}"#

    private func write(_ runner: CommandRunner, _ name: String, _ text: String) throws -> String {
        let url = runner.folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func bundle(_ resources: [String]) -> String {
        #"{"resourceType":"Bundle","type":"collection","entry":["# + resources.map { #"{"resource":"# + $0 + "}" }.joined(separator: ",") + "]}"
    }

    @Test("import a Bundle: stored per type, skipped counted, list, show, JSON; importing again replaces")
    func importListShow() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = try write(runner, "bundle.json", bundle([Self.observation, Self.allergy, Self.patient]))
        let imported = try await runner.run(["records", "import", file, "--source-name", "Good Health Clinic",
                                             "--source-url", "https://fhir.goodhealth.example/r4"])
        #expect(imported.status == 0, "\(imported.output)\(imported.error)")
        #expect(imported.output.contains("stored 2 records"))
        #expect(imported.output.contains("labResultRecord: 1") && imported.output.contains("allergyRecord: 1"))
        #expect(imported.output.contains("skipped 1 resource that are not clinical records (Patient 1)"))

        let list = try await runner.run(["records", "list", "--json"])
        #expect(list.status == 0)
        let records = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        #expect(records.count == 2)
        let lab = try #require(records.first { $0["type"] as? String == "labResultRecord" })
        #expect(lab["name"] as? String == "Hemoglobin A1c")
        #expect(lab["source"] as? String == "Good Health Clinic")
        #expect(lab["sourceURL"] as? String == "https://fhir.goodhealth.example/r4/Observation/a1c")
        #expect(lab["start"] as? String == "2024-03-03T08:00:00Z")

        let uuid = try #require(lab["uuid"] as? String)
        let show = try await runner.run(["records", "show", uuid])
        #expect(show.status == 0)
        #expect(show.output.contains("\"value\": 6.30"), "decimals as received")
        #expect(show.output.contains("resource: Observation/a1c (FHIR 4.0.1)"))

        let onlyAllergies = try await runner.run(["records", "list", "--type", "allergyRecord"])
        #expect(onlyAllergies.output.contains("Allergy to penicillin") && !onlyAllergies.output.contains("Hemoglobin"))

        let again = try await runner.run(["records", "import", file, "--source-name", "Good Health Clinic"])
        #expect(again.status == 0)
        let after = try await runner.run(["records", "list", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(after.output.utf8)) as? [[String: Any]])?.count == 2, "replaced, not duplicated")

        let json = try await runner.run(["records", "import", file, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(report["complete"] as? Bool == true)
        #expect((report["stored"] as? [String: Any])?["labResultRecord"] as? Int == 1)
    }

    @Test("exit 1 when anything is refused (the rest is stored), 2 for usage and I/O errors")
    func exitCodes() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let broken = Self.observation.replacingOccurrences(of: "\"status\":\"final\",", with: "")
        let file = try write(runner, "mixed.json", bundle([broken, Self.allergy]))
        let mixed = try await runner.run(["records", "import", file])
        #expect(mixed.status == 1)
        #expect(mixed.output.contains("stored 1 record"))
        #expect(mixed.output.contains("refused \(file) entry[0] Observation/a1c:"))
        #expect(mixed.output.contains("status"))

        #expect(try await runner.run(["records", "import", runner.folder.appendingPathComponent("missing.json").path]).status == 2)
        #expect(try await runner.run(["records", "import", file, "--fhir-version", "3.0.2"]).status == 2)
        #expect(try await runner.run(["records", "import", file, "--source-url", "ftp://x"]).status == 2)
        #expect(try await runner.run(["records", "list", "--type", "heartRate"]).status == 2)
        let garbage = try write(runner, "garbage.json", "{\"hello\": 1}")
        #expect(try await runner.run(["records", "import", garbage]).status == 1)
        #expect(try await runner.run(["records", "show", UUID().uuidString]).status == 1)
        #expect(try await runner.run(["records", "show", "not-a-uuid"]).status == 2)

        // DSTU2 is validated with the DSTU2 definitions (ModelsDSTU2), not R4's.
        let dstu2 = try write(runner, "dstu2.json",
                              #"{"resourceType":"MedicationOrder","id":"mo1","dateWritten":"2015-01-15","medicationCodeableConcept":{"text":"Amoxicillin"}}"#)
        let imported = try await runner.run(["records", "import", dstu2, "--fhir-version", "1.0.2"])
        #expect(imported.status == 0 && imported.output.contains("medicationRecord: 1"))
        let badDSTU2 = try write(runner, "bad-dstu2.json",
                                 #"{"resourceType":"MedicationOrder","id":"mo2","status":"cancelled","medicationCodeableConcept":{"text":"Amoxicillin"}}"#)
        let refused = try await runner.run(["records", "import", badDSTU2, "--fhir-version", "1.0.2"])
        #expect(refused.status == 1 && refused.output.contains("MedicationOrder.status"), "\(refused.output)")
        let listed = try await runner.run(["records", "list", "--type", "medicationRecord", "--json"])
        #expect(listed.output.contains("\"fhirVersion\": \"1.0.2\""))
    }

    @Test("Input that is not valid JSON, NDJSON or FHIR exits 1 (invalid input), whatever the way it is broken; the valid files beside it are stored")
    func invalidInputExitsOne() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let inputs: [(name: String, text: String)] = [
            ("malformed.json", #"{"resourceType":"Observation","id":"x","#),
            ("nested.json", String(repeating: "[", count: 512) + String(repeating: "]", count: 512)),
            ("nested-object.json",
             #"{"resourceType":"Observation","a":"# + String(repeating: #"{"a":"#, count: 512) + "1" + String(repeating: "}", count: 513)),
            ("garbage.ndjson", "{\"a\" 1}\n\u{1}\u{2}{{{\n]]]\n"),
            ("not-fhir.json", #"{"hello": 1}"#),
            ("empty.json", " \n"),
        ]
        for (position, input) in inputs.enumerated() {
            let file = try write(runner, input.name, input.text)
            let result = try await runner.run(["records", "import", file])
            #expect(result.status == 1, "\(input.name): \(result.status) \(result.output)\(result.error)")
            #expect((result.output + result.error).contains(file), "\(input.name): names the file")
            // With a valid file beside it: the valid one is stored, the status is still 1.
            let valid = try write(runner, "valid.json", Self.observation)
            let mixed = try await runner.run(["records", "import", valid, file])
            // The first time the valid record is stored; after that the same record is already
            // in the store and is not stored again.
            let words = position == 0 ? "stored 1 record" : "stored 0 records\n1 record was already in the store (not stored again)"
            #expect(mixed.status == 1 && mixed.output.contains(words), "\(input.name): \(mixed.output)")
        }
        // Usage and I/O stay 2.
        #expect(try await runner.run(["records", "import", runner.folder.appendingPathComponent("missing.json").path]).status == 2)
    }

    /// An Observation whose note is `size` bytes of text (a large resource), on one line.
    static func largeObservation(id: String, size: Int) -> String {
        #"{"resourceType":"Observation","id":"\#(id)","status":"final","code":{"text":"Scan"},"note":[{"text":""#
            + String(repeating: "x", count: size) + #""}]}"#
    }

    @Test("A document over 16 MiB is refused unread (exit 1); a larger NDJSON file is imported in parts, its one line over the limit refused")
    func sizeLimits() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let limit = 16 << 20
        // One resource over the limit: refused with the reason, nothing stored, exit 1.
        let big = try write(runner, "big.json", Self.largeObservation(id: "big", size: limit + 10))
        let refused = try await runner.run(["records", "import", big])
        #expect(refused.status == 1, "\(refused.output)\(refused.error)")
        #expect((refused.output + refused.error).contains("larger than 16 MiB"), "\(refused.output)\(refused.error)")
        #expect(refused.output.contains("stored 0 records"), "\(refused.output)")
        // A Bundle over the limit: the same.
        let bundleFile = try write(runner, "big-bundle.json", bundle([Self.largeObservation(id: "b", size: limit)]))
        #expect(try await runner.run(["records", "import", bundleFile]).status == 1)

        // NDJSON of 20 MiB: 40 resources of 512 KiB and one line over the limit (refused; the others stored).
        var lines = (0..<40).map { Self.largeObservation(id: "n\($0)", size: 512 << 10) }
        lines.insert(Self.largeObservation(id: "too-big", size: limit + 1), at: 17)
        let ndjson = try write(runner, "big.ndjson", lines.joined(separator: "\n") + "\n")
        let imported = try await runner.run(["records", "import", ndjson, "--json"])
        #expect(imported.status == 1, "\(imported.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(imported.output.utf8)) as? [String: Any])
        #expect(report["storedCount"] as? Int == 40)
        #expect("\(report["refused"] ?? "")".contains("line 18"), "\(report["refused"] ?? "")")
    }

    @Test("cards are verified exactly as health shc verify; the revoked example is refused; shares are listed",
          .enabled(if: SharedVectors.available, SharedVectors.missing))
    func cards() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let examples = try #require(SharedVectors.examples)
        let issuer = ["--issuer", "\(SharedVectors.issuer)=\(examples.appendingPathComponent("issuer").path)"]
        let imported = try await runner.run(["records", "import", examples.appendingPathComponent("example-00-e-file.smart-health-card").path,
                                             examples.appendingPathComponent("example-03-d-jws.txt").path] + issuer)
        #expect(imported.status == 1, "\(imported.output)\(imported.error)")
        #expect(imported.output.contains("verifiable: 1"))
        #expect(imported.output.contains("revocation.revoked"))
        let list = try await runner.run(["records", "list", "--type", "verifiable"])
        #expect(list.output.contains("Moderna COVID-19 vaccine"))
        let uuid = try #require(list.output.split(separator: " ").first.map(String.init))
        let show = try await runner.run(["records", "show", uuid])
        #expect(show.output.contains("subject: John B. Anyperson, born 1951-01-20"))
        #expect(show.output.contains("issuer: \(SharedVectors.issuer)"))
        let shares = try await runner.run(["records", "shares", "--json"])
        #expect(shares.status == 0 && shares.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("a card issued here imports from its QR image, and importing it again stores nothing new")
    func qrImage() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let issuerDir = runner.folder.appendingPathComponent("issuer").path
        let iss = "https://issuer.example.org"
        #expect(try await runner.run(["shc", "keygen", "--out", issuerDir]).status == 0)
        let bundle = try write(runner, "bundle.json", """
            {"resourceType":"Bundle","type":"collection","entry":[
            {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Anyperson","given":["Jane"]}],"birthDate":"1961-01-20"}},
            {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","status":"completed",\
            "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},"patient":{"reference":"resource:0"},\
            "occurrenceDateTime":"2021-01-01"}}]}
            """)
        let image = runner.folder.appendingPathComponent("card.png").path
        let issued = try await runner.run(["shc", "issue", bundle, "--key", issuerDir + "/issuer.private.jwk", "--iss", iss, "--qr", image,
                                           "--out", runner.folder.appendingPathComponent("card.smart-health-card").path])
        #expect(issued.status == 0, "\(issued.error)")
        for _ in 0..<2 {
            let imported = try await runner.run(["records", "import", image, "--issuer", "\(iss)=\(issuerDir)"])
            #expect(imported.status == 0, "\(imported.output)\(imported.error)")
            #expect(imported.output.contains("verifiable: 1"))
        }
        let list = try await runner.run(["records", "list", "--type", "verifiable", "--json"])
        let cards = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        #expect(cards.count == 1)
        #expect(cards.first?["subject"] as? String == "Jane Anyperson")
        #expect(cards.first?["issuer"] as? String == iss)
        // A card signed by a key the issuer folder does not hold is refused.
        let other = runner.folder.appendingPathComponent("other").path
        #expect(try await runner.run(["shc", "keygen", "--out", other]).status == 0)
        let refused = try await runner.run(["records", "import", runner.folder.appendingPathComponent("card.smart-health-card").path,
                                            "--issuer", "\(iss)=\(other)"])
        #expect(refused.status == 1)
    }
}
