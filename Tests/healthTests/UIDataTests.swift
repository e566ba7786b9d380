import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// A person's data tasks in `health ui`, in real headless Chromium (scripts/ui-data.py): a weight
/// added in lb reads in kg after switching units; Browse's search box; delete through the
/// confirmation page and restore; an Apple Health export.zip imported from the page as a job that
/// finishes on its summary, and imported again (0 new, all already in the store); the Medical ID edited and read after a reload; and the look of those
/// pages at 1280 and 390 px, light and dark. Screenshots in .build/ui-screenshots (data-*.png).
@Suite("health ui data tasks", .serialized) struct UIDataTests {
    /// The Me of the demo store's owner (Antonio Castellanos, born 1991-06-08): the import checks the export is theirs.
    static let demoOwnersMe = """
        <Me HKCharacteristicTypeIdentifierDateOfBirth="1991-06-08" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexMale" \
        HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"/>
        """

    /// Add a weight in lb and see it in kg after switching units; search Browse; delete with
    /// confirmation and restore; import an Apple Health export from the page, watch the job finish,
    /// import it again (0 new); edit the Medical ID and see it after reload; every page used at 1280
    /// and 390 px, light and dark, is clean.
    @Test("a person's data tasks in Chromium: add, search, delete and restore, import twice, Medical ID; every page clean",
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func dataTasks() async throws {
        let python = try #require(UICommandTests.browser)
        let running = try await UICommandTests.Running.start()
        defer { running.stop() }
        let export = running.runner.folder.appendingPathComponent("export.zip")
        let generated = AppleHealthExportGenerator.full()
        try AppleHealthExportGenerator.writeZip(to: export, exportXML: Data(generated.document(me: Self.demoOwnersMe).utf8),
                                                files: [("clinical-records/" + AppleHealthExportGenerator.clinicalRecord.name,
                                                         Data(AppleHealthExportGenerator.clinicalRecord.json.utf8)),
                                                        ("workout-routes/" + AppleHealthExportGenerator.fullRoute.name,
                                                         Data(AppleHealthExportGenerator.gpx(AppleHealthExportGenerator.fullRoute.points).utf8))])
        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let errors = running.runner.folder.appendingPathComponent("ui-data.log")
        let output = try await UICommandTests.runBrowserScript(
            python, [UICommandTests.packageRoot.appendingPathComponent("scripts/ui-data.py").path, running.startURL, shots.path, export.path],
            errors: errors)
        #expect(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        func object(_ key: String) -> [String: Any] { report[key] as? [String: Any] ?? [:] }

        let added = object("added")
        #expect((added["notice"] as? String)?.hasPrefix("Saved Weight: 220.5 lb, ") == true, "\(added)")
        #expect((added["kgCells"] as? [String])?.count == 1, "\(added)")
        #expect((added["lbCells"] as? [String])?.isEmpty == true, "\(added)")
        let refused = object("refused")
        #expect((refused["problem"] as? String)?.contains("'heavy' is not a number") == true && refused["value"] as? String == "heavy", "\(refused)")

        let search = object("search")
        #expect((search["url"] as? String)?.hasSuffix("/browse?q=weight") == true, "\(search)")
        #expect(search["groups"] as? [String] == ["Body Measurements"], "\(search)")
        #expect(search["weight"] as? String == "100 kg", "\(search)")

        let delete = object("delete")
        #expect((delete["url"] as? String)?.contains("/delete?uuid=") == true && delete["rows"] as? Int == 1, "\(delete)")
        #expect((delete["heading"] as? String)?.hasPrefix("Delete ") == true, "\(delete)")
        #expect((delete["after"] as? String)?.hasPrefix("Deleted 1 sample(s).") == true, "\(delete)")
        #expect((delete["rowsAfter"] as? Int).map { $0 + 1 } == delete["rowsBefore"] as? Int, "\(delete)")
        #expect(delete["restored"] as? String == "Restored 1 sample: it is back in Browse.", "\(delete)")
        #expect(delete["rowsRestored"] as? Int == delete["rowsBefore"] as? Int, "\(delete)")

        let imported = object("import")
        #expect((imported["jobURL"] as? String)?.contains("/jobs/") == true, "\(imported)")
        #expect((imported["notice"] as? String)?.hasPrefix("Imported ") == true, "\(imported)")
        #expect(imported["heading"] as? String == "Import of export.zip", "\(imported)")
        #expect((imported["headline"] as? String)?.contains("; 0 already in the store; ") == true, "\(imported)")
        let rows = imported["rows"] as? [[String]] ?? []
        #expect(rows.contains(["Weight", "1", "0"]) && rows.contains(["Workouts", "1", "0"]), "\(rows)")
        // The same export again: 0 new, every sample already in the store (the CLI's words), and
        // the uploads' temporary files (beside the store) removed when their jobs ended.
        let again = object("importAgain")
        #expect((again["jobURL"] as? String)?.contains("/jobs/") == true, "\(again)")
        // What the first import stored or found already stored, all found already stored now.
        let stored = rows.compactMap { $0.count == 3 ? (Int($0[1]) ?? 0) + (Int($0[2]) ?? 0) : nil }.reduce(0, +)
        #expect(stored > 0 && (again["headline"] as? String)?.hasPrefix("Imported 0 samples in ") == true, "\(again)")
        #expect((again["headline"] as? String)?.contains("; \(stored) already in the store; ") == true, "\(again) \(rows)")
        #expect((again["notice"] as? String)?.hasPrefix(again["headline"] as? String ?? "-") == true, "\(again)")
        let againRows = again["rows"] as? [[String]] ?? []
        #expect(againRows.contains(["Weight", "0", "1"]) && againRows.contains(["Workouts", "0", "1"]), "\(againRows)")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: running.database.deletingLastPathComponent().path)) ?? []
        #expect(!leftovers.contains { $0.hasPrefix("health-ui-export-") }, "\(leftovers)")

        let medical = object("medicalID")
        #expect(medical["notice"] as? String == "Profile saved.", "\(medical)")
        let fields = medical["fields"] as? [String: String] ?? [:]
        #expect(fields["Medical conditions"] == "Asthma; Hay fever" && fields["Allergies and reactions"] == "Penicillin", "\(fields)")
        #expect(fields["Organ donor"] == "Yes" && fields["Emergency contacts"]?.contains("Orlando Quarrington (brother): +1 555 0199") == true, "\(fields)")
        #expect(medical["conditions"] as? String == "Asthma\nHay fever", "\(medical)")

        let look = object("look")
        #expect(look.count == 10 * 4)
        for (key, value) in look {
            let result = value as? [String: Any] ?? [:]
            #expect(result["status"] as? Int == 200, "\(key)")
            #expect((result["problems"] as? [String])?.isEmpty == true, "\(key): \(result["problems"] ?? "")")
            #expect((result["smallText"] as? [String])?.isEmpty == true, "\(key): \(result["smallText"] ?? "")")
            #expect((result["lowContrast"] as? [String])?.isEmpty == true, "\(key): \(result["lowContrast"] ?? "")")
            #expect(result["scripts"] as? Int == 0, "\(key)")
            if key.contains(" 390 ") { #expect(result["overflow"] as? Bool == false, "\(key) scrolls sideways") }
        }
        #expect((report["screenshots"] as? [String])?.count == 12)
    }
}
