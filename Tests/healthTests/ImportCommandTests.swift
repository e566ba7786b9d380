import AppleHealthExportGenerator
import Foundation
import Testing
@testable import health

@Suite("health import apple-health")
struct ImportCommandTests {
    private static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        ]>
        <HealthData locale="en_US">
         <ExportDate value="2021-01-01 12:00:00 +0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" sourceVersion="14.2" unit="count" \
        creationDate="2026-11-20 11:00:00 +0100" startDate="2026-11-20 10:00:00 +0100" endDate="2026-11-20 11:00:00 +0100" value="1200"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" creationDate="2026-11-20 11:00:00 +0100" \
        startDate="2026-11-20 10:30:00 +0100" endDate="2026-11-20 10:30:00 +0100" value="61"/>
         <Record type="HKDataTypeSleepDurationGoal" sourceName="Phone" unit="hr" startDate="2026-11-20 10:30:00 +0100" \
        endDate="2026-11-20 10:30:00 +0100" value="8"/>
         <ActivitySummary dateComponents="2026-11-20"/>
        </HealthData>

        """

    @Test("Imports an export.xml, prints a summary, and a second run adds nothing")
    func importTwice() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = runner.folder.appendingPathComponent("export.xml")
        try Data(Self.export.utf8).write(to: file)
        let first = try await runner.run(["import", "apple-health", file.path, "--batch-size", "1"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("Imported 3 samples in 3 batches; 0 already in the store; 1 not imported."), "\(first.output)")
        #expect(first.output.contains("HKDataTypeSleepDurationGoal (a Health app setting, not a HealthKit sample: not stored): 1"), "\(first.output)")
        #expect(first.output.contains("  Activity Rings: 1 stored\n"), "\(first.output)")
        #expect(first.output.contains("  Steps: 1 stored\n"), "\(first.output)")
        let second = try await runner.run(["import", "apple-health", file.path])
        #expect(second.status == 0, "\(second.error)")
        // The second run stores nothing and says so: every sample (and the day's summary) is already there.
        #expect(second.output.contains("Imported 0 samples in 1 batch; 3 already in the store; 1 not imported."), "\(second.output)")
        #expect(second.output.contains("  Steps: 1 already in the store\n"), "\(second.output)")
        #expect(second.output.contains("  Activity Rings: 1 already in the store\n"), "\(second.output)")
        #expect(!second.output.contains(" stored\n"), "\(second.output)")
        let query = try await runner.run(["store", "query", "--type", "stepCount", "--from", "2026-11-01", "--to", "2026-12-01", "--json"])
        #expect(query.status == 0, "\(query.error)")
        #expect(query.output.components(separatedBy: "1200").count == 2, "\(query.output)")
    }

    @Test("A date of birth after today is left out with its reason; the export's samples are imported")
    func futureDateOfBirth() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = runner.folder.appendingPathComponent("export.xml")
        let export = Self.export.replacingOccurrences(of: #"HKCharacteristicTypeIdentifierDateOfBirth="""#,
                                                      with: #"HKCharacteristicTypeIdentifierDateOfBirth="2199-01-01""#)
        #expect(export != Self.export)
        try Data(export.utf8).write(to: file)
        let result = try await runner.run(["import", "apple-health", file.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("date of birth refused by the store: a date of birth cannot be in the future"), "\(result.output)")
        #expect(result.output.contains("  Steps: 1 stored\n"), "\(result.output)")
        let profile = try await runner.run(["store", "query", "--type", "stepCount", "--from", "2026-11-01", "--to", "2026-12-01", "--json"])
        #expect(profile.status == 0 && profile.output.contains("1200"), "\(profile.output)")
    }

    @Test("Identical lines of an export are stored once and counted as already in the store, not as imported twice")
    func identicalLines() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let step = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" "#
            + #"startDate="2026-11-20 10:00:00 +0100" endDate="2026-11-20 11:00:00 +0100" value="1200"/>"#
        let other = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" "#
            + #"startDate="2026-11-20 11:00:00 +0100" endDate="2026-11-20 12:00:00 +0100" value="300"/>"#
        let file = runner.folder.appendingPathComponent("export.xml")
        try Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n\(step)\n\(step)\n\(other)\n\(step)\n</HealthData>\n".utf8)
            .write(to: file)
        // Batches of 2: the repeated line is found in the same batch and in a later one.
        let first = try await runner.run(["import", "apple-health", file.path, "--batch-size", "2"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("Imported 2 samples in 2 batches; 2 already in the store; 0 not imported."), "\(first.output)")
        #expect(first.output.contains("  Steps: 2 stored, 2 already in the store\n"), "\(first.output)")
        let query = try await runner.run(["store", "query", "--type", "stepCount", "--from", "2026-11-01", "--to", "2026-12-01", "--json"])
        #expect(query.output.components(separatedBy: "1200").count == 2, "\(query.output)")
        let again = try await runner.run(["import", "apple-health", file.path])
        // Nothing converted or saved again: the records are found in the store before a batch is made.
        #expect(again.output.contains("Imported 0 samples in 0 batches; 4 already in the store; 0 not imported."), "\(again.output)")
    }

    @Test("Imports Apple's export.zip: export.xml streamed from it, its clinical records stored, the rest counted")
    func importZip() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let file = runner.folder.appendingPathComponent("export.zip")
        let record = AppleHealthExportGenerator.clinicalRecord
        try AppleHealthExportGenerator.writeZip(to: file, exportXML: Data(AppleHealthExportGenerator.full().document().utf8), files: [
            (path: "clinical-records/\(record.name)", bytes: Data(record.json.utf8)),
            (path: "electrocardiograms/ecg_2020-10-05.csv", bytes: Data("Name,Jane\n".utf8)),
        ])
        let result = try await runner.run(["import", "apple-health", file.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("Imported 11 samples in 1 batch; 0 already in the store;"), "\(result.output)")
        #expect(result.output.contains("Correlation members Apple also lists as records, imported once: 2."), "\(result.output)")
        #expect(result.output.contains("electrocardiogram not imported: an electrocardiogram CSV has no Recorded Date like 2019-06-25 09:36:02 -0700: 1"),
                "\(result.output)")
        // Not a terminal: no progress bar.
        #expect(!result.error.contains("["), "\(result.error)")
        let records = try await runner.run(["records", "list", "--json"])
        #expect(records.output.contains("7C1A"), "\(records.output)")
    }

    @Test("The progress bar's line: the part of the file read, and the samples imported")
    func progressBar() {
        #expect(ImportProgressBar.line(fraction: 0.5, samples: 1200, width: 10) == "[#####.....]  50%  1200 samples")
        #expect(ImportProgressBar.line(fraction: 1, samples: 1, width: 4) == "[####] 100%  1 sample")
        #expect(ImportProgressBar.line(fraction: 1.7, samples: 3, width: 4) == "[####] 100%  3 samples")
        #expect(ImportProgressBar.line(fraction: nil, samples: 3) == "Importing… 3 samples")
    }

    @Test("A hostile file is refused with status 1, a missing file is a usage error (2)")
    func refusals() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let bomb = runner.folder.appendingPathComponent("bomb.xml")
        try Data("<?xml version=\"1.0\"?><!DOCTYPE HealthData [<!ENTITY a \"aaaa\">]><HealthData locale=\"en_US\">&a;</HealthData>".utf8)
            .write(to: bomb)
        let refused = try await runner.run(["import", "apple-health", bomb.path])
        #expect(refused.status == 1)
        #expect(refused.error.contains("entities"), "\(refused.error)")
        let missing = try await runner.run(["import", "apple-health", runner.folder.appendingPathComponent("none.xml").path])
        #expect(missing.status == 2)
        let zip = try await runner.run(["import", "apple-health", runner.folder.appendingPathComponent("export.zip").path])
        #expect(zip.status == 2)
        let bombFile = runner.folder.appendingPathComponent("bomb.zip")
        let padded = AppleHealthExportGenerator.full().document()
            .replacingOccurrences(of: "<ExportDate", with: String(repeating: " ", count: 3 << 20) + "<ExportDate")
        try AppleHealthExportGenerator.writeZip(to: bombFile, exportXML: Data(padded.utf8))
        let zipBomb = try await runner.run(["import", "apple-health", bombFile.path])
        #expect(zipBomb.status == 1)
        #expect(zipBomb.error.contains("zip bomb"), "\(zipBomb.error)")
        let batch = try await runner.run(["import", "apple-health", bomb.path, "--batch-size", "0"])
        #expect(batch.status == 2)
    }
}
