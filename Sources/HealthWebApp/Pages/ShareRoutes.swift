import FhirBlocksClient
import Foundation
import HealthRecords
import HealthSharing
import Hummingbird
import OpenHealthKit
import SmartHealthLinks

/// The Share page's routes: `GET /share`; `POST /share/create` (with a wallet: `ShareLinks.create`
/// of HealthSharing, the created link shown once with its QR code, never put in an address);
/// `POST /share/revoke`; `POST /share/update` (a long-term link re-encrypted with today's
/// content); `POST /share/open` (a pasted link or its QR image, opened once and previewed through
/// `SharedLinkOpener`, as `health share open` does; what it fetched is kept in `ShareOpenedLinks`)
/// and `POST /share/import` (the kept preview stored through the records importer: the link is
/// not opened a second time). Every form carries the session's CSRF token.
extension HealthWebApp {
    func addShareRoutes(to router: Router<BasicRequestContext>) {
        router.get("/share") { request, _ in
            let query = request.uri.queryParameters
            let picking = ShareRecordPicks.request(pick: query["pick"].map(String.init), before: query["before"].map(String.init))
            return try await pages.page(title: "Share", section: .share, content: shareIndex(csrf: csrf(request), picking: picking),
                                        notice: query["changed"].map(String.init), problem: query["problem"].map(String.init))
        }
        router.post("/share/create") { request, _ in
            let form = try await formFields(request)
            guard let links = shareLinks() else {
                throw HTTPError(.notFound, message: "No wallet is connected: start health ui with --identity FILE --server URL; no link was created.")
            }
            let created: CreatedShareLink
            do throws(SharingWalletProblem) {
                let options = try ShareCreateForm(form).options
                do throws(ShareError) {
                    created = try await links.create(options)
                } catch {
                    throw SharingWalletProblem("The link was not created: \(error.description)")
                }
            } catch {
                return try await shareProblem(error.description, csrf: csrf(request))
            }
            return try await pages.page(title: "Share", section: .share, content: ShareView(text: sampleText()).created(created),
                                        notice: "The link was created.")
        }
        router.post("/share/revoke") { request, _ in
            let form = try await formFields(request)
            guard let links = shareLinks() else {
                throw HTTPError(.notFound, message: "No wallet is connected: start health ui with --identity FILE --server URL; nothing was revoked.")
            }
            guard let id = form["id"], !id.isEmpty else {
                return Self.redirect("/share?problem=" + Self.queryValue("The form did not name a link; nothing was revoked."))
            }
            do throws(ShareError) {
                try await links.revoke(id: id)
                return Self.redirect("/share?changed=" + Self.queryValue("The link was revoked: it no longer opens."))
            } catch {
                return Self.redirect("/share?problem=" + Self.queryValue("The link was not revoked: \(error.description)"))
            }
        }
        router.post("/share/update") { request, _ in
            let form = try await formFields(request)
            guard let links = shareLinks() else {
                throw HTTPError(.notFound, message: "No wallet is connected: start health ui with --identity FILE --server URL; nothing was updated.")
            }
            guard let id = form["id"], !id.isEmpty else {
                return Self.redirect("/share?problem=" + Self.queryValue("The form did not name a link; nothing was updated."))
            }
            do throws(ShareError) {
                _ = try await links.update(id: id)
                return Self.redirect("/share?changed=" + Self.queryValue("The link now carries today's records."))
            } catch {
                return Self.redirect("/share?problem=" + Self.queryValue("The link was not updated: \(error.description)"))
            }
        }
        router.post("/share/open") { request, _ in
            let form = try await multipartForm(request)
            let recipient = Self.recipientName(form["recipient"])
            let passcode = form["passcode"] ?? ""
            let linkText: String
            if let pasted = form["link"], pasted.contains(where: { !$0.isWhitespace }) {
                linkText = pasted.trimmingCharacters(in: .whitespacesAndNewlines)
            } else if let image = form.files(named: "image").first(where: { !$0.bytes.isEmpty }) {
                do throws(CardUpload.ImageFailure) {
                    let texts = String(decoding: try CardUpload.qrText(image.bytes), as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
                    linkText = SharedLinkOpener.linkText(among: texts)
                } catch {
                    return try await shareProblem("The QR image could not be read: \(error.description).", csrf: csrf(request))
                }
            } else {
                return try await shareProblem("Paste a link or choose its QR image; nothing was opened.", csrf: csrf(request))
            }
            let opened: OpenedSharedLink
            do throws(SharedLinkOpenError) {
                let link = try SharedLinkOpener.parse(linkText)
                opened = try await SharedLinkOpener(verifier: currentVerifier())
                    .open(link, recipient: recipient, passcode: passcode.isEmpty ? nil : passcode, now: clock())
            } catch {
                return try await shareProblem(Self.openProblem(error), csrf: csrf(request))
            }
            // Kept for the Import button: importing takes these files, never opens the link again.
            let token = ShareOpenedLinks.shared.keep(opened, store: store, session: csrf(request), now: clock())
            return try await pages.page(title: "Share", section: .share,
                                        content: ShareView(text: sampleText()).preview(opened, token: token, csrf: csrf(request)))
        }
        router.post("/share/import") { request, _ in
            let form = try await formFields(request)
            guard let opened = ShareOpenedLinks.shared.take(form["opened"] ?? "", store: store, session: csrf(request), now: clock()) else {
                return try await shareProblem("This preview is no longer kept (a preview is imported once, within 30 minutes): "
                                                  + "open the link again; nothing was imported.",
                                              csrf: csrf(request))
            }
            let report: HealthRecordImportReport
            do throws(SharedLinkOpenError) {
                report = try await SharedLinkOpener(verifier: currentVerifier()).importFiles(opened, into: store, now: clock())
            } catch {
                return try await shareProblem(Self.openProblem(error), csrf: csrf(request))
            }
            let heading = report.isComplete ? "Imported the shared records" : "Some of the shared records were not imported"
            return pages.page(title: "Share", section: .share,
                              content: ImportReportView.render(report, pages: pages, heading: heading, back: "/records", backText: "See your health records"),
                              status: report.isComplete ? .ok : .unprocessableContent)
        }
    }

    /// The Share page's content: the create form and my links (with a wallet), and the open form.
    /// The single-record picker lists the newest records of each category, a link to each one's
    /// older records when it has more; with `picking`, the page of one category's records it names
    /// (``ShareRecordPicks``, by keyset), so every record can be chosen.
    func shareIndex(csrf: String, picking: (type: HKClinicalType, before: Date?)? = nil) async throws -> String {
        let text = try await sampleText()
        var categories: [ShareView.Category] = []
        for type in HKObjectType.allClinicalTypes {
            let count = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: type)], sortDescriptors: []).result(for: store).count
            if count > 0 { categories.append(.init(id: type.identifier, name: RecordsView.categoryName(type), count: count)) }
        }
        categories.sort { $0.name < $1.name }
        let picks = try await shareRecordPicks(picking, text: text)
        let storedCards = try await CardsView(store: store, pages: pages, text: text).cards()
        let cardCount = storedCards.count
        let cards = storedCards.prefix(ShareView.picksPerGroup).map {
            ShareView.Pick(id: $0.uuid.uuidString, name: $0.itemNames.first ?? "Health card",
                           detail: Self.issuerName($0.issuerIdentifier) + ", " + String(text.date($0.startDate).prefix(10)))
        }
        var links: Result<[SharedLinkRecord], SharingWalletProblem>?
        if let shareLinks = shareLinks() {
            do {
                links = .success(try await shareLinks.list())
            } catch {
                links = .failure(SharingWalletProblem("Your links could not be read: \(error.description)"))
            }
        }
        return ShareView(text: text).index(connected: wallet != nil, categories: categories, records: picks, cards: Array(cards),
                                           cardCount: cardCount, links: links, csrf: csrf)
    }

    /// The single-record picker's records: the newest page of each category (with the address of
    /// its older records when there are more), or the page `picking` names of one category (with
    /// the addresses of the newest and the older records).
    func shareRecordPicks(_ picking: (type: HKClinicalType, before: Date?)?, text: SampleText) async throws -> ShareView.RecordPicks {
        func pick(_ record: HKClinicalRecord, _ type: HKClinicalType) -> ShareView.Pick {
            ShareView.Pick(id: record.uuid.uuidString, name: record.displayName,
                           detail: RecordsView.categoryName(type) + ", " + String(text.date(record.startDate).prefix(10)))
        }
        if let picking {
            let page = try await ShareRecordPicks.read(picking.type, before: picking.before, from: store)
            let paging = ShareView.RecordPaging(name: RecordsView.categoryName(picking.type),
                                                newest: picking.before == nil ? nil : ShareRecordPicks.address(picking.type, before: nil),
                                                older: page.next.map { ShareRecordPicks.address(picking.type, before: $0) })
            return ShareView.RecordPicks(records: page.records.map { pick($0, picking.type) }, older: [], paging: paging)
        }
        var picks = ShareView.RecordPicks(records: [], older: [], paging: nil)
        for type in HKObjectType.allClinicalTypes.sorted(by: { RecordsView.categoryName($0) < RecordsView.categoryName($1) }) {
            let page = try await ShareRecordPicks.read(type, before: nil, from: store)
            picks.records += page.records.map { pick($0, type) }
            if let next = page.next {
                picks.older.append(ShareView.OlderRecords(name: RecordsView.categoryName(type), address: ShareRecordPicks.address(type, before: next)))
            }
        }
        return picks
    }

    /// The person's links through the wallet, when `health ui` has one.
    func shareLinks() -> ShareLinks? {
        wallet.map { ShareLinks(store: store, wallet: WalletClient(client: $0.client, identity: $0.identity)) }
    }

    private func shareProblem(_ problem: String, csrf: String) async throws -> Response {
        pages.page(title: "Share", section: .share, content: try await shareIndex(csrf: csrf), problem: problem, status: .unprocessableContent)
    }

    /// An opener's error in the page's words (the CLI's `--passcode` hint left out).
    static func openProblem(_ error: SharedLinkOpenError) -> String {
        if case .refused(.passcodeRequired) = error { return "This link is protected by a passcode: give it in the form." }
        return error.description
    }

    /// A card issuer as the picking list names it: its host (an issuer's whole address is one long
    /// word that would widen the form past a phone's screen), else the identifier as it is.
    static func issuerName(_ identifier: String) -> String {
        URL(string: identifier)?.host ?? identifier
    }

    /// The reader's name as the form gave it, else a neutral one.
    static func recipientName(_ field: String?) -> String {
        let name = (field ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? "Someone" : String(name.prefix(200))
    }
}
