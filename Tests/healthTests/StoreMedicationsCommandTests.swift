import Foundation
import Testing

/// `health store medications`: the owner tracks medications and logs doses through the built binary.
@Suite("health store medications: add, list, dose, doses, archive")
struct StoreMedicationsCommandTests {
    @Test("Add a medication twice (tracked once), log doses, list them in words and JSON, archive it")
    func medicationsThroughTheBinary() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let added = try await runner.run(["store", "medications", "add", "--name", "Lisinopril 10 MG Oral Tablet", "--form", "tablet",
                                          "--rxnorm", "314076", "--nickname", "Blood pressure", "--scheduled"])
        #expect(added.status == 0, "\(added.error)")
        #expect(added.output.contains("Added Lisinopril 10 MG Oral Tablet (Blood pressure) – tablet – RxNorm 314076 – scheduled."))
        let again = try await runner.run(["store", "medications", "add", "--name", "lisinopril", "--rxnorm", "314076"])
        #expect(again.status == 0 && again.output.contains("Already tracked: Lisinopril 10 MG Oral Tablet"), "\(again.output) \(again.error)")
        #expect(try await runner.run(["store", "medications", "add", "--name", "Salbutamol inhaler", "--form", "inhaler"]).status == 0)

        let badForm = try await runner.run(["store", "medications", "add", "--name", "X", "--form", "lozenge"])
        #expect(badForm.status != 0 && badForm.error.contains("unknown form 'lozenge'"))
        let badCode = try await runner.run(["store", "medications", "add", "--name", "X", "--rxnorm", "abc"])
        #expect(badCode.status != 0 && badCode.error.contains("an RxNorm code is a number"))

        let listed = try await runner.run(["store", "medications", "list"])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.split(separator: "\n").count == 2)
        #expect(listed.output.contains("Salbutamol inhaler – inhaler – as needed"))

        let dose = try await runner.run(["store", "medications", "dose", "--medication", "Blood pressure", "--status", "taken",
                                         "--at", "2026-11-20T08:05:00Z", "--scheduled-at", "2026-11-20T08:00:00Z", "--scheduled-quantity", "1"])
        #expect(dose.status == 0, "\(dose.error)")
        #expect(dose.output.contains("Lisinopril 10 MG Oral Tablet: Taken, 1 count (scheduled"))
        let skipped = try await runner.run(["store", "medications", "dose", "--medication", "314076", "--status", "skipped",
                                            "--at", "2026-11-21T08:30:00Z", "--scheduled-at", "2026-11-21T08:00:00Z"])
        #expect(skipped.status == 0, "\(skipped.error)")
        let puff = try await runner.run(["store", "medications", "dose", "--medication", "salbutamol", "--quantity", "2", "--at", "2026-11-20T12:00:00Z"])
        #expect(puff.status == 0 && puff.output.contains("Taken, 2 count (as needed)"), "\(puff.output) \(puff.error)")
        let unknown = try await runner.run(["store", "medications", "dose", "--medication", "aspirin"])
        #expect(unknown.status != 0 && unknown.error.contains("no tracked medication is named 'aspirin'"))
        let badStatus = try await runner.run(["store", "medications", "dose", "--medication", "salbutamol", "--status", "maybe"])
        #expect(badStatus.status != 0 && badStatus.error.contains("unknown status 'maybe'"))

        let doses = try await runner.run(["store", "medications", "doses", "--medication", "lisinopril", "--json"])
        #expect(doses.status == 0, "\(doses.error)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(doses.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["status"] as? String } == ["skipped", "taken"])
        #expect(objects.last?["date"] as? String == "2026-11-20T08:05:00Z")
        #expect(objects.last?["scheduledDate"] as? String == "2026-11-20T08:00:00Z")
        #expect(objects.last?["quantity"] as? Double == 1)
        let allDoses = try await runner.run(["store", "medications", "doses"])
        #expect(allDoses.status == 0 && allDoses.output.split(separator: "\n").count == 3, "\(allDoses.output)")
        // Dose events are samples: `health store query` lists them too.
        let queried = try await runner.run(["store", "query", "--type", "medicationDoseEvent", "--json"])
        #expect(queried.status == 0, "\(queried.error)")
        #expect((try JSONSerialization.jsonObject(with: Data(queried.output.utf8)) as? [Any])?.count == 3)

        let archived = try await runner.run(["store", "medications", "archive", "--medication", "Lisinopril"])
        #expect(archived.status == 0 && archived.output.contains("Archived Lisinopril 10 MG Oral Tablet."), "\(archived.error)")
        let active = try await runner.run(["store", "medications", "list", "--json"])
        let remaining = try #require(try JSONSerialization.jsonObject(with: Data(active.output.utf8)) as? [[String: Any]])
        #expect(remaining.map { $0["name"] as? String } == ["Salbutamol inhaler"])
        let everything = try await runner.run(["store", "medications", "list", "--archived"])
        #expect(everything.output.contains("– archived"))
    }
}
