import Foundation
import HealthRecords
import Hummingbird
import OpenHealthKit
import SmartHealthCards

/// The Health cards page's routes: the page (one page of cards, newest first, each with its
/// verdict kept in ``CardVerdictCache`` while its issuer's keys, revocation list and clock
/// boundaries are unchanged), adding cards, and re-checking all of them as a background job.
extension HealthWebApp {
    /// The verifier as of now (or as of its own instant, when ``verifiesAsOfNow`` is false).
    func currentVerifier() -> SHCVerifier {
        let now = verifiesAsOfNow ? clock() : (verifier?.now ?? clock())
        guard let verifier else { return SHCVerifier(resolver: StaticKeyResolver([:]), now: now) }
        return SHCVerifier(resolver: verifier.resolver, trust: verifier.trust, now: now, limits: verifier.limits)
    }

    /// The importer `health records import` uses, with this page's verifier; `allowOtherPerson`
    /// is the form's "import anyway" choice for another person's records.
    func recordImporter(fhirVersion: HKFHIRVersion = .primaryR4(), allowOtherPerson: Bool = false) -> HealthRecordImporter {
        HealthRecordImporter(store: store, verifier: currentVerifier(),
                             options: .init(fhirVersion: fhirVersion, now: clock(), allowOtherPerson: allowOtherPerson))
    }

    /// A multipart upload's fields and files (the session middleware already limited its size
    /// and checked its CSRF token).
    func multipartForm(_ request: Request) async throws -> MultipartForm {
        guard let contentType = request.headers[.contentType], let boundary = MultipartForm.boundary(contentType: contentType) else {
            throw HTTPError(.unsupportedMediaType, message: "This form must be sent as multipart/form-data; nothing was changed.")
        }
        var request = request
        let body = try await request.collectBody(upTo: uploadLimit)
        do {
            return try MultipartForm(body, boundary: boundary)
        } catch {
            throw HTTPError(.badRequest, message: "The upload could not be read (\(error)); nothing was changed.")
        }
    }

    func addCardRoutes(to router: Router<BasicRequestContext>) {
        router.get("/cards") { request, _ in
            // The page's cursor (before, skip) decides what is read; its number is only shown.
            let query = request.uri.queryParameters
            let cursor = CardsView.PageCursor(before: query["before"].map(String.init), skip: query["skip"].map(String.init))
            let page = cursor == nil ? 1 : query["page"].flatMap { Int(String($0)) }.map { min(max(2, $0), 1_000_000) } ?? 2
            let view = CardsView(store: store, pages: pages, text: try await sampleText())
            let (cards, _, older) = try await view.cards(from: cursor)
            let verifier = currentVerifier()
            let checks = await cardVerdicts.checks(for: cards, with: verifier)
            let notice = request.uri.queryParameters["added"].map { "Added \($0) card(s); each was verified first." }
            return pages.page(title: "Health cards", section: .cards,
                              content: view.render(cards, page: page, older: older, checks: checks, checkedAt: verifier.now,
                                                   hasTrustPolicy: verifier.trust != nil, csrf: csrf(request)),
                              notice: notice)
        }
        router.post("/cards/add") { request, _ in
            let form = try await multipartForm(request)
            let (inputs, unreadable) = CardUpload.inputs(form)
            guard !inputs.isEmpty || !unreadable.isEmpty else {
                throw HTTPError(.badRequest, message: "Choose a card file or a QR image, or paste the card's shc:/ text; nothing was added.")
            }
            var report = HealthRecordImportReport()
            report.unreadable = unreadable
            let importer = recordImporter(allowOtherPerson: form["allowOtherPerson"] == "yes")
            for input in inputs {
                guard !CardUpload.isFHIR(input.bytes) else {
                    report.unreadable.append((input.name, "this is a FHIR file, not a health card: import it on the Health records page"))
                    continue
                }
                try await importer.importInput(input.bytes, named: input.name, into: &report)
            }
            if report.isComplete { return Self.redirect("/cards?added=\(report.stored.count)") }
            let heading = report.stored.isEmpty ? "The card was not added" : "Some cards were not added"
            return pages.page(title: "Health cards", section: .cards,
                              content: ImportReportView.render(report, pages: pages, heading: heading, back: "/cards", backText: "Back to health cards"),
                              status: .unprocessableContent)
        }
        router.post("/cards/recheck") { request, _ in
            let view = CardsView(store: store, pages: pages, text: try await sampleText())
            let cards = try await view.cards()
            let verifier = currentVerifier()
            let csrf = csrf(request)
            let id = jobs.start(title: "Checking \(cards.count) card(s) again", total: cards.count, origin: "/cards") { reporter in
                let checks = await cardVerdicts.checks(for: cards, with: verifier, force: true) { reporter.done($0) }
                let failing = checks.values.filter { !$0.verifies }.count
                return (view.render(cards, checks: checks, checkedAt: verifier.now, hasTrustPolicy: verifier.trust != nil, csrf: csrf),
                        "Checked \(cards.count) card(s) again: \(failing) do not verify now.")
            }
            return Self.redirect("/jobs/\(id)")
        }
    }
}
