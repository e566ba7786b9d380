import AppleHealthClinicalRecords
import AppleHealthExport
import Foundation
import HealthRecords
import Hummingbird
import Mustache
import OpenHealthKit

/// The Apple Health import from the page (`/import/apple-health`): the `export.zip` (or its
/// `export.xml`) the Health app writes, uploaded with a CSRF-protected form, kept in an owner-only
/// temporary file, and imported by AppleHealthExport's importer (as `health import apple-health`
/// does: streamed, in batches, one person per store) in a background job whose progress page
/// ends on the import's summary.
extension HealthWebApp {
    func addAppleHealthImportRoutes(to router: Router<BasicRequestContext>) {
        router.get("/import/apple-health") { request, _ in
            pages.page(title: "Import from Apple Health", section: .browse,
                       content: AppleHealthImportView.render("form", ["csrf": csrf(request), "limit": uploadLimit / 1_048_576]))
        }
        router.post("/import/apple-health") { request, _ in
            let form = try await multipartForm(request)
            guard let file = form.files(named: "export").first else {
                throw HTTPError(.badRequest, message: "Choose the export.zip (or export.xml) the Health app wrote; nothing was imported.")
            }
            let allowOtherPerson = form["allowOtherPerson"] == "yes"
            let upload: AppleHealthUpload
            do {
                upload = try await AppleHealthUpload.spool(file)
            } catch {
                throw HTTPError(.internalServerError, message: "The upload could not be kept for the import; nothing was imported.")
            }
            var importer = AppleHealthImporter(clinicalRecords: nil)
            let clinicalRecords = AppleHealthClinicalRecordImporter(store: store, now: clock(), allowOtherPerson: allowOtherPerson)
            importer.clinicalRecords = clinicalRecords
            let profile = try? await store.ownerProfile()
            if !allowOtherPerson, let profile, let birth = ProfileView.dateText(profile.dateOfBirth), let owner = HealthRecordPerson(profile: profile) {
                importer.expectedPerson = (birth, owner.description)
            }
            importer.keepsOwnerCharacteristics = profile?.identifiesPerson ?? false
            let store = store
            let name = file.filename
            let job = importer
            let id = jobs.start(title: "Importing \(name)", total: 100, origin: "/browse", serial: true) { reporter in
                defer { upload.remove() }
                do {
                    let report = try await job.importExport(at: upload.url, into: store) { state in
                        if let fraction = state.fraction { reporter.done(Int(fraction * 99)) }
                    }
                    return AppleHealthImportView.summary(report, file: name, refusals: clinicalRecords.otherPersonRefusals)
                } catch let error as AppleHealthExportError {
                    return AppleHealthImportView.failure(file: name, reason: error.description, otherPerson: error.kind == .otherPerson)
                } catch {
                    return AppleHealthImportView.failure(file: name, reason: "the store could not save it (\(error)); the batches saved before stay",
                                                         otherPerson: false)
                }
            }
            return Self.redirect("/jobs/\(id)")
        }
    }
}

/// An uploaded export in an owner-only (0600) temporary file, named with the upload's extension,
/// from the time its request is answered until its import job ends.
struct AppleHealthUpload: Sendable {
    let url: URL

    /// Writes the file on a Dispatch thread (file writes block; Swift's cooperative threads must not).
    static func spool(_ file: MultipartForm.File) async throws -> AppleHealthUpload {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let suffix = file.filename.lowercased().hasSuffix(".xml") ? "xml" : "zip"
                    let url = FileManager.default.temporaryDirectory.appendingPathComponent("health-ui-export-\(UUID().uuidString).\(suffix)")
                    guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                        throw CocoaError(.fileWriteUnknown)
                    }
                    let upload = AppleHealthUpload(url: url)
                    do {
                        let handle = try FileHandle(forWritingTo: url)
                        defer { try? handle.close() }
                        try file.bytes.withUnsafeBytes { bytes in try handle.write(contentsOf: UnsafeRawBufferPointer(bytes)) }
                    } catch {
                        upload.remove()
                        throw error
                    }
                    return upload
                })
            }
        }
    }

    /// Removes the temporary file.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The Apple Health import's pages: the upload form and the summary a job ends on.
enum AppleHealthImportView {
    /// The summary of a finished import: what was stored by type (the names people use), what was
    /// not imported and why, and clinical records refused as another person's.
    static func summary(_ report: AppleHealthImportReport, file: String, refusals: [String]) -> (content: String, notice: String?) {
        let imported = report.imported.map { (name: HKObjectType.sampleType(named: $0.key).map(SampleText.name(of:)) ?? $0.key, count: $0.value) }
            .sorted { $0.name < $1.name }
        let count = report.importedCount
        let notice = "Imported \(count) sample\(count == 1 ? "" : "s") from \(file)" + (refusals.isEmpty ? "." : "; \(refusals.count) record(s) refused, listed below.")
        let content = render("summary", [
            "file": file, "count": count, "batches": report.batches, "imported": imported.map { ["name": $0.name, "count": $0.count] },
            "hasImported": !imported.isEmpty, "characteristics": report.characteristics, "hasCharacteristics": report.characteristics > 0,
            "duplicates": report.duplicates, "hasDuplicates": report.duplicates > 0,
            "skipped": report.skipped.sorted { $0.key < $1.key }.map { ["reason": $0.key, "count": $0.value] },
            "hasSkipped": !report.skipped.isEmpty, "skippedCount": report.skippedCount,
            "refusals": refusals, "hasRefusals": !refusals.isEmpty,
        ])
        return (content, notice)
    }

    /// The page of an import that stopped: the reason, and what to do.
    static func failure(file: String, reason: String, otherPerson: Bool) -> (content: String, notice: String?) {
        (render("failure", ["file": file, "reason": reason, "otherPerson": otherPerson]), nil)
    }

    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, template) in templates { try? library.register(template, named: name) }
        return library
    }()

    static func render(_ name: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: name) ?? ""
    }

    static let templates: [String: String] = ["form": form, "summary": summaryTemplate, "failure": failureTemplate]

    static let form = """
        <p><a href="/browse">All types</a></p>
        <section class="card" aria-labelledby="import-heading">
        <h2 id="import-heading">Import an Apple Health export</h2>
        <p>On the iPhone, open Health, tap your picture, then Export All Health Data; bring the export.zip here.
        Records, blood pressure, workouts, the Me details and clinical records are imported in batches; importing the same export again stores nothing twice.
        This page takes exports of up to {{limit}} MB; <code>health import apple-health export.zip</code> imports any size.</p>
        <form method="post" action="/import/apple-health" enctype="multipart/form-data" class="upload">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="export-file">The export (export.zip, or its export.xml)</label><br>
        <input id="export-file" type="file" name="export" required accept=".zip,.xml,application/zip,text/xml"></p>
        <p><input id="export-other-person" type="checkbox" name="allowOtherPerson" value="yes">
        <label for="export-other-person">Import it even if it is another person's export (not the person of your <a href="/profile">profile</a>)</label></p>
        <p><button type="submit">Import</button></p>
        </form>
        </section>
        """

    static let summaryTemplate = """
        <section class="card" aria-labelledby="summary-heading">
        <h2 id="summary-heading">Import of {{file}}</h2>
        <p>Imported {{count}} sample(s) in {{batches}} batch(es).{{#hasCharacteristics}} Me details set: {{characteristics}}.{{/hasCharacteristics}}
        {{#hasDuplicates}} Blood pressure and food members Apple also lists on their own, imported once: {{duplicates}}.{{/hasDuplicates}}</p>
        {{#hasImported}}<div class="scroll"><table class="import-summary">
        <thead><tr><th scope="col">Type</th><th scope="col">Samples</th></tr></thead>
        <tbody>{{#imported}}<tr><td>{{name}}</td><td>{{count}}</td></tr>{{/imported}}</tbody>
        </table></div>{{/hasImported}}
        {{#hasSkipped}}<details><summary>Not imported: {{skippedCount}}</summary>
        <ul>{{#skipped}}<li>{{reason}}: {{count}}</li>{{/skipped}}</ul></details>{{/hasSkipped}}
        {{#hasRefusals}}<p class="problem">Clinical records of another person were refused:</p>
        <ul>{{#refusals}}<li>{{.}}</li>{{/refusals}}</ul>
        <p>To store them anyway, import the export again with “Import it even if it is another person's export”.</p>{{/hasRefusals}}
        <p><a href="/browse">Browse your data</a> · <a href="/import/apple-health">Import another export</a></p>
        </section>
        """

    static let failureTemplate = """
        <section class="card" aria-labelledby="summary-heading">
        <h2 id="summary-heading">{{file}} was not imported</h2>
        <p class="problem">{{reason}}.</p>
        {{#otherPerson}}<p>If it is meant for this store anyway, import it again with “Import it even if it is another person's export”.</p>{{/otherPerson}}
        <p>Batches saved before the problem stay; importing the export again resumes without storing anything twice.
        <a href="/import/apple-health">Back to the import</a></p>
        </section>
        """
}
