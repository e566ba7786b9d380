import Foundation
import Testing

/// `health fhir validate` and `health fhir format`: output and exit codes (0 valid, 1 invalid, 2 usage/I/O).
@Suite("health fhir")
struct FhirCommandTests {
    private func write(_ runner: CommandRunner, _ name: String, _ text: String) throws -> String {
        let url = runner.folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private let observation = #"{"status":"final","resourceType":"Observation","valueQuantity":{"value":19.00,"unit":"mg"},"code":{"text":"x"}}"#

    @Test("validate: a valid file exits 0, an invalid one 1 with every error and its path")
    func validate() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let good = try write(runner, "good.json", observation)
        let bad = try write(runner, "bad.json", #"{"resourceType":"Observation","code":{"text":1},"foo":true}"#)
        let valid = try await runner.run(["fhir", "validate", good])
        #expect(valid.status == 0, "\(valid.output)\(valid.error)")
        #expect(valid.output.contains("good.json: Observation valid (0 errors, 0 warnings)"))

        let invalid = try await runner.run(["fhir", "validate", good, bad])
        #expect(invalid.status == 1)
        #expect(invalid.output.contains("bad.json: Observation INVALID (3 errors, 0 warnings)"))
        #expect(invalid.output.contains("error: Observation.status: required element is missing"))
        #expect(invalid.output.contains("error: Observation.code.text: a string must be a JSON string, found number"))
        #expect(invalid.output.contains("error: Observation.foo: unknown element"))

        let json = try await runner.run(["fhir", "validate", "--json", good, bad])
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(report["valid"] as? Bool == false)
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.map { $0["valid"] as? Bool } == [true, false])
        #expect((files[1]["errors"] as? [[String: Any]])?.count == 3)
    }

    @Test("validate: unreadable files and no arguments are usage errors (exit 2)")
    func validateUsage() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let missing = try await runner.run(["fhir", "validate", runner.folder.appendingPathComponent("absent.json").path])
        #expect(missing.status == 2)
        #expect(missing.error.contains("cannot read"))
        let none = try await runner.run(["fhir", "validate"])
        #expect(none.status == 2)
    }

    @Test("format: canonical order, decimals kept, pretty and minified, idempotent")
    func format() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let input = try write(runner, "in.json", observation)
        let minified = try await runner.run(["fhir", "format", "--minified", input])
        #expect(minified.status == 0, "\(minified.error)")
        #expect(minified.output == #"{"resourceType":"Observation","status":"final","code":{"text":"x"},"valueQuantity":{"value":19.00,"unit":"mg"}}"# + "\n")

        let pretty = try await runner.run(["fhir", "format", input])
        #expect(pretty.output.hasPrefix("{\n  \"resourceType\": \"Observation\",\n  \"status\": \"final\","))
        #expect(pretty.output.contains("\"value\": 19.00"))
        let again = try write(runner, "pretty.json", pretty.output)
        let output = runner.folder.appendingPathComponent("out.json").path
        let second = try await runner.run(["fhir", "format", again, "--output", output])
        #expect(second.status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == pretty.output)
    }

    @Test("format: input that does not decode exits 1 with the path of the problem")
    func formatInvalid() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let input = try write(runner, "bad.json", #"{"resourceType":"Patient","birthDate":12}"#)
        let result = try await runner.run(["fhir", "format", input])
        #expect(result.status == 1)
        #expect(result.error.contains("birthDate"))
        #expect(result.output.isEmpty)
    }

    @Test("--fhir-version 1.0.2: validate and format with the DSTU2 definitions; other versions are usage errors")
    func dstu2() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        // Valid DSTU2 (patient, not subject; a single category), invalid R4.
        let statement = #"""
            {"status":"completed","resourceType":"MedicationStatement","patient":{"reference":"Patient/p"},"medicationCodeableConcept":{"text":"x"},\#
            "dosage":[{"quantityQuantity":{"value":2.50,"unit":"mg"}}]}
            """#
        let file = try write(runner, "dstu2.json", statement)
        let valid = try await runner.run(["fhir", "validate", "--fhir-version", "1.0.2", file])
        #expect(valid.status == 0, "\(valid.output)\(valid.error)")
        #expect(valid.output.contains("dstu2.json: MedicationStatement valid (0 errors, 0 warnings)"))
        let asR4 = try await runner.run(["fhir", "validate", file])
        #expect(asR4.status == 1)
        #expect(asR4.output.contains("error: MedicationStatement.patient: unknown element"))

        let r4Only = try write(runner, "r4.json",
                               #"{"resourceType":"MedicationRequest","status":"active","intent":"order","subject":{"reference":"Patient/p"},"#
                                   + #""medicationCodeableConcept":{"text":"x"}}"#)
        let unknown = try await runner.run(["fhir", "validate", "--fhir-version", "1.0.2", "--json", r4Only])
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("unknown resourceType"))

        let formatted = try await runner.run(["fhir", "format", "--minified", "--fhir-version", "1.0.2", file])
        #expect(formatted.status == 0, "\(formatted.error)")
        #expect(formatted.output == #"""
            {"resourceType":"MedicationStatement","patient":{"reference":"Patient/p"},"status":"completed","medicationCodeableConcept":{"text":"x"},\#
            "dosage":[{"quantityQuantity":{"value":2.50,"unit":"mg"}}]}
            """# + "\n")

        for command in ["validate", "format"] {
            let other = try await runner.run(["fhir", command, "--fhir-version", "3.0.2", file])
            #expect(other.status == 2, "\(command)")
            #expect(other.error.contains("--fhir-version takes 4.0.1 or 1.0.2"), "\(other.error)")
        }
    }
}
