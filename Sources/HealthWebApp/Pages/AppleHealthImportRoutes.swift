import AppleHealthClinicalRecords
import AppleHealthExport
import Foundation
import HealthPresentation
import HealthRecords
import Hummingbird
import Mustache
import OpenHealthKit

/// The Apple Health import from the page (`/import/apple-health`): the `export.zip` (or its
/// `export.xml`) the Health app writes, uploaded with a CSRF-protected form and streamed as it
/// arrives to an owner-only temporary file (``StreamedUpload``: a gigabyte is never held in memory;
/// up to ``importLimit``), then imported by AppleHealthExport's importer (as `health import
/// apple-health` does: streamed, in batches, one person per store) in a background job whose
/// progress page ends on the import's summary. The temporary file is removed when the job ends,
/// or when the server stops.
extension HealthWebApp {
    /// The import's address (its posts are streamed: the session middleware does not read them).
    static let appleHealthImportPath = "/import/apple-health"

    func addAppleHealthImportRoutes(to router: Router<BasicRequestContext>) {
        router.get(RouterPath(Self.appleHealthImportPath)) { request, _ in
            pages.page(title: "Import from Apple Health", section: .browse,
                       content: AppleHealthImportView.render("form", ["csrf": csrf(request), "limit": Self.sizeText(importLimit)]))
        }
        router.post(RouterPath(Self.appleHealthImportPath)) { request, _ in
            let upload = try await receiveExport(request)
            guard let url = upload.file else {
                throw HTTPError(.badRequest, message: "Choose the export.zip (or export.xml) the Health app wrote; nothing was imported.")
            }
            let allowOtherPerson = upload.fields["allowOtherPerson"] == "yes"
            // The import's batches share transactions (HKHealthStore.withBulkWrite); the person's other writes through the
            // page's store meanwhile (a sample added, one deleted) commit when they are answered all the same.
            var importer = AppleHealthImporter(clinicalRecords: nil)
            let clinicalRecords = AppleHealthClinicalRecordImporter(store: store, now: clock(), allowOtherPerson: allowOtherPerson)
            importer.clinicalRecords = clinicalRecords
            let profile = try? await store.ownerProfile()
            if !allowOtherPerson, let profile, let birth = ProfileView.dateText(profile.dateOfBirth), let owner = HealthRecordPerson(profile: profile) {
                importer.expectedPerson = (birth, owner.description)
            }
            importer.keepsOwnerCharacteristics = profile?.identifiesPerson ?? false
            let store = store
            let uploads = uploads
            let name = upload.filename
            let job = importer
            let id = jobs.start(title: "Importing \(name)", total: 100, origin: "/browse", serial: true) { reporter in
                let result: (content: String, notice: String?)
                do {
                    let report = try await job.importExport(at: url, into: store) { state in
                        if let fraction = state.fraction { reporter.done(Int(fraction * 99)) }
                    }
                    result = AppleHealthImportView.summary(report, file: name, refusals: clinicalRecords.otherPersonRefusals)
                } catch let error as AppleHealthExportError {
                    result = AppleHealthImportView.failure(file: name, reason: error.description, otherPerson: error.kind == .otherPerson)
                } catch {
                    result = AppleHealthImportView.failure(file: name, reason: "the store could not save it (\(error)); the batches saved before stay",
                                                           otherPerson: false)
                }
                await uploads.remove(url)
                return result
            }
            return Self.redirect("/jobs/\(id)")
        }
    }

    /// The import's form, its body streamed to a temporary file: refused with 413 past
    /// ``importLimit`` (at once when its `Content-Length` says so), with 403 when the file comes
    /// before a valid CSRF token (nothing written), with 400 when it is not a well-formed form.
    func receiveExport(_ request: Request) async throws -> StreamedUpload {
        guard let contentType = request.headers[.contentType], let boundary = MultipartForm.boundary(contentType: contentType) else {
            throw HTTPError(.badRequest, message: "Choose the export.zip (or export.xml) the Health app wrote; nothing was imported.")
        }
        let tooLarge = "The export is larger than this page's limit of \(Self.sizeText(importLimit)); nothing was imported. "
            + "health import apple-health export.zip imports an export of any size."
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > importLimit {
            throw HTTPError(.contentTooLarge, message: tooLarge)
        }
        let sessionID = request.cookies[WebSession.cookieName]?.value ?? ""
        let session = session
        let authorized = { (fields: [String: String]) in
            fields[WebSession.csrfField].map { session.verify(csrfToken: $0, sessionID: sessionID) } ?? false
        }
        let upload: StreamedUpload
        do {
            upload = try await StreamedUpload.receive(request.body, boundary: boundary, limit: importLimit, fileField: "export", into: uploads,
                                                      suffix: { $0.lowercased().hasSuffix(".xml") ? "xml" : "zip" }, authorized: authorized)
        } catch {
            switch error {
            case .tooLarge: throw HTTPError(.contentTooLarge, message: tooLarge)
            case .forbidden: throw HTTPError(.forbidden, message: Self.expiredForm)
            case .form(let problem): throw HTTPError(.badRequest, message: "The upload could not be read (\(problem)); nothing was imported.")
            case .unwritable: throw HTTPError(.internalServerError, message: "The upload could not be kept for the import; nothing was imported.")
            case .interrupted: throw HTTPError(.badRequest, message: "The upload stopped before its end; nothing was imported.")
            }
        }
        guard authorized(upload.fields) else {
            if let file = upload.file { await uploads.remove(file) }
            throw HTTPError(.forbidden, message: Self.expiredForm)
        }
        return upload
    }

    /// What a form without a valid CSRF token is told (the session middleware's words).
    static let expiredForm = "This form has expired or did not come from this page; nothing was changed. Reload the page and try again."

    /// A size in words: `4 GB`, `8 MB`.
    static func sizeText(_ bytes: Int) -> String {
        bytes >= 1 << 30 && bytes % (1 << 30) == 0 ? "\(bytes >> 30) GB" : "\(bytes / 1_048_576) MB"
    }
}

/// The Apple Health import's pages: the upload form and the summary a job ends on.
enum AppleHealthImportView {
    /// The summary of a finished import, in the words `health import apple-health` prints
    /// (HealthPresentation's `ImportSummaryText`): new samples stored, samples the store already had,
    /// by type (the names people use), what was not imported and why, and clinical records
    /// refused as another person's.
    static func summary(_ report: AppleHealthImportReport, file: String, refusals: [String]) -> (content: String, notice: String?) {
        let text = ImportSummaryText(stored: report.imported, alreadyStored: report.alreadyStored, notImported: report.skipped,
                                     batches: report.batches, duplicates: report.duplicates)
        let notice = text.headline + (refusals.isEmpty ? "" : " \(refusals.count) record(s) refused, listed below.")
        let content = render("summary", [
            "file": file, "headline": text.headline, "duplicatesLine": text.duplicatesLine ?? "", "hasDuplicates": text.duplicatesLine != nil,
            "types": text.types.map { ["name": $0.name, "stored": $0.stored, "alreadyStored": $0.alreadyStored] }, "hasTypes": !text.types.isEmpty,
            "characteristics": report.characteristics, "hasCharacteristics": report.characteristics > 0,
            "skipped": text.notImported.map { ["reason": $0.reason, "count": $0.count] },
            "hasSkipped": !text.notImported.isEmpty, "skippedCount": text.notImportedCount,
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
        This page takes exports of up to {{limit}}; <code>health import apple-health export.zip</code> imports any size.</p>
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
        <p class="import-headline">{{headline}}</p>
        {{#hasDuplicates}}<p>{{duplicatesLine}}</p>{{/hasDuplicates}}
        {{#hasCharacteristics}}<p>Characteristics set: {{characteristics}}.</p>{{/hasCharacteristics}}
        {{#hasTypes}}<div class="scroll"><table class="import-summary">
        <thead><tr><th scope="col">Type</th><th scope="col">Stored</th><th scope="col">Already in the store</th></tr></thead>
        <tbody>{{#types}}<tr><td>{{name}}</td><td>{{stored}}</td><td>{{alreadyStored}}</td></tr>{{/types}}</tbody>
        </table></div>{{/hasTypes}}
        {{#hasSkipped}}<details><summary>Not imported: {{skippedCount}}.</summary>
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
