import HealthRecords
import OpenHealthKit

/// What an import did, as a page section: what was stored (by category), what was skipped, and
/// what was refused or could not be read, with the reasons in plain words (``CardReasons``).
enum ImportReportView {
    static func render(_ report: HealthRecordImportReport, pages: PageRenderer, heading: String, back: String, backText: String) -> String {
        var stored: [String: Int] = [:]
        for sample in report.stored {
            let name = (sample as? HKClinicalRecord).map { RecordsView.categoryName($0.clinicalType) } ?? "Health cards"
            stored[name, default: 0] += 1
        }
        let skipped = report.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let refusals: [[String: Any]] = report.refusals.map {
            ["input": $0.input, "location": $0.location, "reasons": CardReasons.plain($0.reasons)]
        }
        let unreadable: [[String: String]] = report.unreadable.map { ["input": $0.input, "reason": CardReasons.plain($0.reason).text] }
        let storedText = report.stored.isEmpty ? "Nothing was stored." : "Stored \(report.stored.count) item(s)."
        return pages.render("importReport", [
            "heading": heading, "storedText": storedText,
            "stored": stored.sorted { $0.key < $1.key }.map { ["name": $0.key, "count": $0.value] }, "hasStored": !stored.isEmpty,
            "skipped": skipped, "hasSkipped": !skipped.isEmpty,
            "refusals": refusals, "unreadable": unreadable, "hasProblems": !refusals.isEmpty || !unreadable.isEmpty,
            "otherPerson": !report.otherPeople.isEmpty, "back": back, "backText": backText,
        ])
    }
}
