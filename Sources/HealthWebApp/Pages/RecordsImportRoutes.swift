import Foundation
import HealthRecords
import Hummingbird
import OpenHealthKit

/// The Health records page with its import form, and the import itself: FHIR files (a resource,
/// a Bundle, NDJSON; several at once; R4 or DSTU2) stored through HealthRecords' importer, as `health records
/// import` does, in a background job whose progress page ends on a summary.
extension HealthWebApp {
    func addRecordsImportRoutes(to router: Router<BasicRequestContext>) {
        router.get("/records") { request, _ in
            let form = pages.render("recordsImportForm", ["csrf": csrf(request)])
            let index = try await RecordsView(store: store, pages: pages, text: sampleText()).index()
            return pages.page(title: "Health records", section: .records, content: form + index)
        }
        router.post("/records/import") { request, _ in
            let form = try await multipartForm(request)
            let files = form.files(named: "files")
            guard !files.isEmpty else { throw HTTPError(.badRequest, message: "Choose one or more FHIR files; nothing was imported.") }
            // The versions `health records import --fhir-version` takes.
            guard let version = try? HKFHIRVersion(fromVersionString: form["fhirVersion"] ?? "4.0.1"),
                  version.fhirRelease == .r4 || version.fhirRelease == .dstu2 else {
                throw HTTPError(.badRequest, message: "Choose FHIR version 4.0.1 (R4) or 1.0.2 (DSTU2); nothing was imported.")
            }
            let importer = recordImporter(fhirVersion: version, allowOtherPerson: form["allowOtherPerson"] == "yes")
            let pages = pages
            // The files wait in temporary files: the body and the form are released when this answers.
            let uploads: [SpooledUpload]
            do {
                uploads = try await SpooledUpload.spool(files)
            } catch {
                throw HTTPError(.internalServerError, message: "The upload could not be kept for the import; nothing was imported.")
            }
            // Serial: one import parses and stores at a time, however many uploads arrive together.
            let id = jobs.start(title: "Importing \(files.count) file(s)", total: files.count, origin: "/records", serial: true) { reporter in
                // Two phases, one progress bar: each file read and filed (one step each), then each
                // record stored (one step each, committed in batches).
                var report = HealthRecordImportReport()
                var prepared: [(name: String, input: HealthRecordImporter.PreparedInput)] = []
                for (index, upload) in uploads.enumerated() {
                    do {
                        let bytes = try await upload.takeOffPool()
                        if let input = await importer.prepareInput(bytes, named: upload.filename, into: &report) {
                            prepared.append((upload.filename, input))
                        }
                    } catch {
                        report.unreadable.append((upload.filename, "the uploaded file could not be read back"))
                    }
                    reporter.done(index + 1)
                }
                let total = uploads.count + prepared.reduce(0) { $0 + $1.input.count }
                var stored = uploads.count
                reporter.done(stored, of: total)
                for (name, input) in prepared {
                    let before = stored
                    do {
                        try await importer.store(input, into: &report, batchSize: Self.importBatchSize) { count in
                            reporter.done(before + count, of: total)
                        }
                    } catch {
                        report.unreadable.append((name, "the store could not save all of its records; those listed as stored were saved"))
                    }
                    stored = before + input.count
                }
                let problems = report.refusals.count + report.unreadable.count
                let notice = "Imported \(report.stored.count) record(s)" + (problems > 0 ? "; \(problems) problem(s), listed below." : ".")
                return (ImportReportView.render(report, pages: pages, heading: "Import of \(uploads.count) file(s)", back: "/records",
                                                backText: "Back to health records"), notice)
            }
            return Self.redirect("/jobs/\(id)")
        }
    }

    /// How many records an import from the page commits in one transaction (and one progress step).
    static let importBatchSize = 200
}
