import AppleHealthExportGenerator
import Foundation
import Testing

@Suite("health profile and one person per store")
struct ProfileCommandTests {
    static let antonio = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"resource":{"resourceType":"Patient","id":"p7","name":[{"use":"official","family":"Castellanos","given":["Antonio"]}],"birthDate":"1962-09-28"}},
        {"resource":{"resourceType":"AllergyIntolerance","id":"al7","patient":{"reference":"Patient/p7"},\
        "code":{"coding":[{"system":"http://snomed.info/sct","code":"91936005","display":"Allergy to penicillin"}]},"recordedDate":"2019-05-01"}}
        ]}
        """
    static let zelinda = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"resource":{"resourceType":"Patient","id":"z1","name":[{"family":"QUARRINGTON","given":["Zélinda","M."]}],"birthDate":"1984-02-29"}},
        {"resource":{"resourceType":"Observation","id":"a1c","status":"final","code":{"text":"Hemoglobin A1c"},\
        "effectiveDateTime":"2024-03-03T08:00:00Z","valueQuantity":{"value":6.30,"unit":"%"}}}
        ]}
        """

    private func write(_ runner: CommandRunner, _ name: String, _ text: String) throws -> String {
        let url = runner.folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func recordCount(_ runner: CommandRunner) async throws -> Int {
        let list = try await runner.run(["records", "list", "--json"])
        return (try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])?.count ?? -1
    }

    @Test("set and show the profile and the Medical ID, as text and JSON; wrong values are usage errors, removing what is not there is refused")
    func setAndShow() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let empty = try await runner.run(["profile"])
        #expect(empty.status == 0)
        #expect(empty.output.contains("No profile yet"))

        let set = try await runner.run(["profile", "set", "--name", "Zelinda Quarrington", "--birth-date", "1984-02-29", "--sex", "female",
                                        "--blood-type", "AB-", "--organ-donor", "yes"])
        #expect(set.status == 0, "\(set.error)")
        #expect(set.output.contains("Name:           Zelinda Quarrington"))
        for arguments in [["add-condition", "Asthma"], ["add-allergy", "Penicillin"], ["add-medication", "Salbutamol 100 µg"],
                          ["add-allergy", "penicillin"],
                          ["add-contact", "--name", "Orlando Quarrington", "--relationship", "brother", "--phone", "+1 555 0199"]] {
            let result = try await runner.run(["profile", "medical-id"] + arguments)
            #expect(result.status == 0, "\(arguments) \(result.error)")
        }
        let show = try await runner.run(["profile", "show"])
        for line in ["Date of birth:  1984-02-29", "Sex:            female", "Blood type:     AB-", "Organ donor:    yes",
                     "Conditions:     Asthma", "Allergies:      Penicillin\n", "Medications:    Salbutamol 100 µg",
                     "  Orlando Quarrington (brother): +1 555 0199"] {
            #expect(show.output.contains(line), "\(line) in \(show.output)")
        }
        let json = try await runner.run(["profile", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["givenName"] as? String == "Zelinda" && object["familyName"] as? String == "Quarrington")
        #expect(object["birthDate"] as? String == "1984-02-29" && object["sex"] as? String == "female" && object["bloodType"] as? String == "AB-")
        let medicalID = try #require(object["medicalID"] as? [String: Any])
        #expect(medicalID["allergies"] as? [String] == ["Penicillin"])
        #expect(medicalID["organDonor"] as? Bool == true)

        let removed = try await runner.run(["profile", "medical-id", "remove-condition", "ASTHMA"])
        #expect(removed.status == 0 && removed.output.contains("Conditions:     none"))
        let missing = try await runner.run(["profile", "medical-id", "remove-allergy", "Nuts"])
        #expect(missing.status == 1)
        #expect(missing.error.contains("the Medical ID has no allergy 'Nuts'"))
        let wrongBlood = try await runner.run(["profile", "set", "--blood-type", "C+"])
        #expect(wrongBlood.status == 2)
        #expect(wrongBlood.error.contains("--blood-type takes A+, A-, B+, B-, AB+, AB-, O+, O- or unset, got 'C+'"))
        let wrongDate = try await runner.run(["profile", "set", "--birth-date", "1985-02-29"])
        #expect(wrongDate.status == 2)
        #expect(try await runner.run(["profile", "--json"]).output.contains("\"birthDate\": \"1984-02-29\""))
    }

    @Test("records import: a mismatched Patient is refused with both names (exit 1) and stored with --allow-other-person; a matching one imports")
    func personCheck() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let other = try write(runner, "antonio.json", Self.antonio)
        let own = try write(runner, "zelinda.json", Self.zelinda)

        // No profile yet: imported, with a hint to make the store the patient's.
        let first = try await runner.run(["records", "import", own])
        #expect(first.status == 0, "\(first.output)\(first.error)")
        #expect(first.error.contains("hint: this store has no profile yet"))
        #expect(first.error.contains("health profile set --given-name 'Zélinda M.' --family-name QUARRINGTON --birth-date 1984-02-29"), "\(first.error)")
        #expect(try await runner.run(["profile"]).output.contains("No profile yet"), "the profile is not set by itself")

        #expect(try await runner.run(["profile", "set", "--name", "Zelinda Quarrington", "--birth-date", "1984-02-29"]).status == 0)
        let refused = try await runner.run(["records", "import", other])
        #expect(refused.status == 1)
        #expect(refused.output.contains("these records are of Antonio Castellanos (born 1962-09-28), "
                                            + "but this store belongs to Zelinda Quarrington (born 1984-02-29): nothing in this input was stored"),
                "\(refused.output)")
        #expect(refused.output.contains("--allow-other-person"))
        #expect(!refused.error.contains("hint:"))
        #expect(try await recordCount(runner) == 1)

        let json = try await runner.run(["records", "import", other, "--json"])
        #expect(json.status == 1)
        #expect(json.output.contains("Antonio Castellanos (born 1962-09-28)"))

        let allowed = try await runner.run(["records", "import", other, "--allow-other-person"])
        #expect(allowed.status == 0, "\(allowed.output)")
        #expect(try await recordCount(runner) == 2)

        // Case, diacritics and a middle initial do not matter; the birth date does.
        let again = try await runner.run(["records", "import", own])
        #expect(again.status == 0, "\(again.output)")
        #expect(try await runner.run(["profile", "set", "--birth-date", "1984-03-01"]).status == 0)
        let wrongDay = try await runner.run(["records", "import", own])
        #expect(wrongDay.status == 1)
        #expect(wrongDay.output.contains("Zélinda M. QUARRINGTON (born 1984-02-29)"))
    }

    @Test("import apple-health: an export whose Me date of birth is not the profile's is refused before anything is stored")
    func appleHealth() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = runner.folder.appendingPathComponent("export.xml")
        try Data(AppleHealthExportGenerator.full().document().utf8).write(to: file)
        #expect(try await runner.run(["profile", "set", "--name", "Zelinda Quarrington", "--birth-date", "1975-06-01"]).status == 0)
        let refused = try await runner.run(["import", "apple-health", file.path])
        #expect(refused.status == 1)
        #expect(refused.error.contains("this export is of a person born 1980-02-29, but this store belongs to Zelinda Quarrington (born 1975-06-01)"),
                "\(refused.error)")
        #expect(refused.error.contains("--allow-other-person"))
        let query = try await runner.run(["profile", "--json"])
        #expect(query.output.contains("\"birthDate\": \"1975-06-01\""), "the export's Me did not replace the owner's date of birth")

        let allowed = try await runner.run(["import", "apple-health", file.path, "--allow-other-person"])
        #expect(allowed.status == 0, "\(allowed.error)")
        #expect(allowed.output.contains("Imported 10 samples"), "\(allowed.output)")
        // Another person's Me does not become the owner's: the profile's date of birth stays.
        let after = try await runner.run(["profile", "--json"])
        #expect(after.output.contains("\"birthDate\": \"1975-06-01\""), "another person's export replaced the owner's date of birth: \(after.output)")
        let ownRecords = try write(runner, "zelinda.json", Self.zelinda.replacingOccurrences(of: "1984-02-29", with: "1975-06-01"))
        #expect(try await runner.run(["records", "import", ownRecords]).status == 0, "the owner's own records are still accepted")
    }

    @Test("records import of NDJSON read in parts: another person's Patient on the first or the last line stores nothing; the owner's imports")
    func personCheckInParts() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["profile", "set", "--name", "Zelinda Quarrington", "--birth-date", "1984-02-29"]).status == 0)
        let antonio = #"{"resourceType":"Patient","id":"p7","name":[{"family":"Castellanos","given":["Antonio"]}],"birthDate":"1962-09-28"}"#
        let zelinda = #"{"resourceType":"Patient","id":"z1","name":[{"family":"Quarrington","given":["Zelinda"]}],"birthDate":"1984-02-29"}"#
        // 20 MiB: more than one document may be, so read in parts of about 4 MiB.
        let observations = (0..<40).map { RecordsCommandTests.largeObservation(id: "n\($0)", size: 512 << 10) }
        for (name, lines) in [("first.ndjson", [antonio] + observations), ("last.ndjson", observations + [antonio])] {
            let file = try write(runner, name, lines.joined(separator: "\n") + "\n")
            let refused = try await runner.run(["records", "import", file])
            #expect(refused.status == 1, "\(name): \(refused.output)\(refused.error)")
            #expect(refused.output.contains("these records are of Antonio Castellanos (born 1962-09-28)"), "\(name): \(refused.output)")
            #expect(try await recordCount(runner) == 0, "\(name): nothing of another person's input is stored")
        }
        let own = try write(runner, "own.ndjson", (observations + [zelinda]).joined(separator: "\n") + "\n")
        let imported = try await runner.run(["records", "import", own])
        #expect(imported.status == 0, "\(imported.output)\(imported.error)")
        #expect(try await recordCount(runner) == 40)
    }

    @Test("records import: a Patient's birth date that is not YYYY-MM-DD is not put into the suggested command")
    func hintBirthDate() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = try write(runner, "odd.json", Self.zelinda.replacingOccurrences(of: "1984-02-29", with: "$(reboot);x"))
        let imported = try await runner.run(["records", "import", file])
        #expect(imported.error.contains("hint: this store has no profile yet"), "\(imported.output)\(imported.error)")
        #expect(!imported.error.contains("--birth-date"), "\(imported.error)")
        #expect(imported.error.contains("health profile set --given-name 'Zélinda M.' --family-name QUARRINGTON"), "\(imported.error)")
    }
}
