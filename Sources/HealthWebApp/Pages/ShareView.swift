import FhirBlocksClient
import Foundation
import HealthRecords
import HealthSharing
import Mustache
import QRCode
import SmartHealthLinks
import SmartHealthCards

/// The Share page: "Share by link" (what to share, a passcode, an expiry, a label; the created
/// link with its QR code), "My links" (who opened each and when; revoke), and "Open a shared
/// link" (paste a link or upload its QR image, preview, import). Forms only, no script; the
/// templates are this file's own (swift-mustache escapes every value).
struct ShareView {
    let text: SampleText

    /// One record category the form offers.
    struct Category {
        let id: String
        let name: String
        let count: Int
    }

    /// One record or card the form offers on its own.
    struct Pick {
        let id: String
        let name: String
        let detail: String
    }

    /// The most single records of one category on one page of the picker, and single cards, the
    /// form lists (the newest; a category's older records are paged, ``ShareRecordPicks``).
    static let picksPerGroup = 50

    /// A category whose older records the picker links to.
    struct OlderRecords {
        let name: String
        let address: String
    }

    /// The picker showing one category's page: its name and the addresses of its newest and
    /// older pages (nil on the newest or the last page).
    struct RecordPaging {
        let name: String
        let newest: String?
        let older: String?
    }

    /// The single records the form offers: the picks, the categories with older records, and the
    /// paging when one category's page is shown.
    struct RecordPicks {
        var records: [Pick]
        var older: [OlderRecords]
        var paging: RecordPaging?
    }

    /// The page: the create form (with a wallet), my links (or why they could not be read), the open form.
    func index(connected: Bool, categories: [Category], records: RecordPicks, cards: [Pick], cardCount: Int,
               links: Result<[SharedLinkRecord], SharingWalletProblem>?, csrf: String) -> String {
        func picks(_ list: [Pick]) -> [[String: Any]] { list.map { ["id": $0.id, "name": $0.name, "detail": $0.detail] } }
        var context: [String: Any] = [
            "connected": connected, "csrf": csrf, "cardCount": cardCount,
            "categories": categories.map { ["id": $0.id, "name": $0.name, "count": $0.count] },
            "records": picks(records.records), "hasRecords": !records.records.isEmpty || records.paging != nil,
            "olderRecords": records.older.map { ["name": $0.name, "address": $0.address] },
            "cards": picks(cards), "hasCards": !cards.isEmpty,
            "attemptsDefault": ShareCreateForm.defaultAttempts, "attemptsMax": ShareCreateForm.maximumAttempts,
            "expiries": ShareCreateForm.expiries.map { ["value": $0.value, "label": $0.label, "selected": $0.value == "30d"] },
            "labelMax": ShareOptions.maximumLabelLength,
        ]
        if let paging = records.paging {
            var page: [String: Any] = ["name": paging.name]
            if let newest = paging.newest { page["newest"] = newest }
            if let older = paging.older { page["older"] = older }
            context["paging"] = page
        }
        switch links {
        case .success(let records):
            context["links"] = records.map(row)
            context["hasLinks"] = !records.isEmpty
            context["linksRead"] = true
        case .failure(let problem):
            context["linksProblem"] = problem.description
        case nil:
            break
        }
        return Self.render("share", context) + Self.render("open", ["csrf": csrf])
    }

    /// The created link: its QR code (inline SVG), the link and the viewer's address.
    func created(_ link: CreatedShareLink) -> String {
        Self.render("created", ["link": link.link, "viewerLink": link.viewerLink, "qr": Self.qrSVG(link.viewerLink) ?? "",
                                "label": link.record.label ?? "", "expires": expiry(link.record.expires, expired: false),
                                "passcode": link.record.flags.contains("P")])
    }

    /// An opened link's preview, with the form that imports it: the form carries the token of the
    /// files the preview fetched (kept by `ShareOpenedLinks`), so Import does not open the link again.
    func preview(_ opened: OpenedSharedLink, token: String, csrf: String) -> String {
        let files: [[String: Any]] = opened.reports.map { report in
            var file: [String: Any] = ["number": report.number, "type": Self.typeName(report.contentType), "valid": report.valid]
            if let problem = report.problem { file["problem"] = problem }
            if let cards = report.cards {
                file["cards"] = cards.map { card in
                    ["verdict": card.isValid ? "Verified" : "Does not verify", "valid": card.isValid,
                     "issuer": card.issuerName ?? card.claims?.iss ?? "an unknown issuer",
                     "reasons": card.isValid ? "" : card.errors.map(\.description).joined(separator: "; ")] as [String: Any]
                }
            }
            if let resources = report.resources {
                let listed = resources.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                file["resources"] = listed.isEmpty ? "no resources" : listed.joined(separator: ", ")
                file["bundleType"] = report.bundleType ?? ""
            } else if let type = report.resourceType {
                file["resources"] = "one \(type)"
            }
            return file
        }
        return Self.render("preview", [
            "label": opened.link.label ?? "", "files": files, "count": files.count, "allValid": opened.allValid, "csrf": csrf,
            "opened": token, "expires": opened.link.expiration.map {
                "The link " + expiry(Date(timeIntervalSince1970: Double($0)), expired: false) + "."
            } ?? "",
        ])
    }

    /// When a link stops opening, in words, with the date as every page writes dates
    /// (`HealthFormatter`'s, in the person's time zone): "expires on 2026-12-29 10:42 UTC",
    /// "expired on …" once `expired`, "does not expire" without a date.
    func expiry(_ date: Date?, expired: Bool) -> String {
        guard let date else { return "does not expire" }
        return (expired ? "expired on " : "expires on ") + text.date(date)
    }

    private func row(_ record: SharedLinkRecord) -> [String: Any] {
        let accesses: [[String: Any]] = record.accesses.map {
            ["recipient": $0.recipient, "at": text.date($0.at), "outcome": Self.outcomeName($0.outcome)]
        }
        return [
            "id": record.id, "label": record.label ?? "(no label)", "created": text.date(record.created),
            "expires": expiry(record.expires, expired: record.status == "expired"), "status": record.status, "active": record.status == "active",
            "passcode": record.flags.contains("P") ? "yes" : "no", "files": record.fileCount, "accesses": accesses,
            "kind": Self.kindName(record.flags), "updatable": record.status == "active" && record.flags.contains("L"),
            "opened": accesses.isEmpty ? "no one yet" : "", "hasAccesses": !accesses.isEmpty,
        ]
    }

    /// How a link opens, from its flags.
    static func kindName(_ flags: String) -> String {
        if flags.contains("U") { return "direct" }
        if flags.contains("L") { return "long-term" }
        return "fixed"
    }

    static func outcomeName(_ outcome: String) -> String {
        switch outcome {
        case "opened": "opened it"
        case "wrong-passcode": "gave a wrong passcode"
        case "refused-locked": "was refused: the link is locked"
        case "refused-expired": "was refused: the link expired"
        case "refused-revoked": "was refused: the link was revoked"
        case "passcode-missing": "gave no passcode"
        case "too-many-requests": "asked again too soon"
        default: outcome
        }
    }

    static func typeName(_ contentType: String?) -> String {
        switch SHLContentType.mediaType(of: contentType) {
        case "application/smart-health-card"?: "Health cards"
        case "application/fhir+json"?: "FHIR records"
        case let other?: other
        case nil: "unknown content"
        }
    }

    /// The link's QR code as inline SVG (nil when it does not fit one symbol).
    static func qrSVG(_ link: String) -> String? {
        guard let code = try? QRCode.encode(text: link, errorCorrection: .medium) else { return nil }
        let svg = code.svg(moduleSize: 4)
        guard let start = svg.range(of: "<svg") else { return nil }
        return svg[start.lowerBound...].replacingOccurrences(of: "<svg ", with: "<svg class=\"qr\" role=\"img\" aria-label=\"QR code of the link\" ")
    }

    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, template) in templates { try? library.register(template, named: name) }
        return library
    }()

    private static func render(_ name: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: name) ?? ""
    }

    static let templates: [String: String] = ["share": share, "created": created, "preview": preview, "open": open]

    static let share = """
        <section class="card" aria-labelledby="share-heading">
        <h2 id="share-heading">Share by link</h2>
        {{^connected}}
        <p>To share your records by a link or QR code, start <code>health ui --identity FILE --server URL</code> with the identity
        file of your wallet: the server keeps the encrypted files, and the key stays in the link.</p>
        {{/connected}}
        {{#connected}}
        <p>The files are encrypted here; the server keeps only what it cannot read. Whoever has the link (and the passcode) can read them until it \
        expires or you revoke it.</p>
        <form method="post" action="/share/create" class="fields" aria-labelledby="share-heading">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <span></span><fieldset><legend>What to share</legend>
        <p><label><input type="checkbox" name="summary" value="yes" checked> A patient summary: allergies, medications, problems, immunizations and \
        results</label></p>
        {{#categories}}<p><label><input type="checkbox" name="type-{{id}}" value="yes"> All {{name}} ({{count}})</label></p>{{/categories}}
        <p><label><input type="checkbox" name="cards" value="yes"> All my health cards ({{cardCount}})</label></p>
        {{#hasRecords}}<details class="picks" id="picks"{{#paging}} open{{/paging}}><summary>Or choose single records{{#paging}}: {{name}}{{/paging}}</summary>
        {{#records}}<p><label><input type="checkbox" name="record-{{id}}" value="yes"> {{name}} <span class="muted">({{detail}})</span></label></p>{{/records}}
        {{#paging}}{{^records}}<p>No older {{name}} records.</p>{{/records}}{{/paging}}
        {{#olderRecords}}<p><a href="{{address}}">Older {{name}} records →</a></p>{{/olderRecords}}
        {{#paging}}<p>{{#newest}}<a href="{{newest}}">← Newest {{name}} records</a> {{/newest}}<a href="/share">All categories</a>\
        {{#older}} <a href="{{older}}" rel="next">Older {{name}} records →</a>{{/older}}</p>{{/paging}}
        </details>{{/hasRecords}}
        {{#hasCards}}<details class="picks"><summary>Or choose single health cards</summary>
        {{#cards}}<p><label><input type="checkbox" name="card-{{id}}" value="yes"> {{name}} <span class="muted">({{detail}})</span></label></p>{{/cards}}
        </details>{{/hasCards}}
        </fieldset>
        <label for="share-passcode">Passcode (optional; give it separately)</label><input id="share-passcode" name="passcode" autocomplete="off" \
        maxlength="100">
        <label for="share-attempts">Wrong passcodes allowed</label><input id="share-attempts" name="attempts" type="number" inputmode="numeric" \
        min="1" max="{{attemptsMax}}" placeholder="{{attemptsDefault}}">
        <label for="share-expiry">Expires</label><select id="share-expiry" name="expiry">{{#expiries}}<option value="{{value}}"{{#selected}} \
        selected{{/selected}}>{{label}}</option>{{/expiries}}</select>
        <label for="share-label">Label (the reader sees it)</label><input id="share-label" name="label" maxlength="{{labelMax}}">
        <span></span><fieldset><legend>How the link opens</legend>
        <p><label><input type="radio" name="kind" value="fixed" checked> Fixed: what you choose now</label></p>
        <p><label><input type="radio" name="kind" value="long-term"> Long-term: you can update it with today's records (flag L)</label></p>
        <p><label><input type="radio" name="kind" value="direct"> Direct: one file, opened without a list of files; no passcode (flag U)</label></p>
        </fieldset>
        <span></span><button type="submit">Create the link</button>
        </form>
        <h3 id="links-heading">My links</h3>
        {{#linksProblem}}<p class="problem" role="alert">{{linksProblem}}</p>{{/linksProblem}}
        {{#linksRead}}{{^hasLinks}}<p>You have not shared a link yet.</p>{{/hasLinks}}{{/linksRead}}
        {{#hasLinks}}
        <div class="scroll"><table aria-labelledby="links-heading">
        <thead><tr><th scope="col">Label</th><th scope="col">Created</th><th scope="col">Expiry</th><th scope="col">Passcode</th><th \
        scope="col">Kind</th><th scope="col">Status</th><th scope="col">Opened by</th><th scope="col"><span \
        class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>{{#links}}<tr><th scope="row">{{label}}</th><td>{{created}}</td><td>{{expires}}</td><td>{{passcode}}</td><td>{{kind}}</td><td>{{status}}</td>
        <td>{{opened}}{{#hasAccesses}}<ul class="accesses">{{#accesses}}<li>{{recipient}} {{outcome}}, {{at}}</li>{{/accesses}}</ul>{{/hasAccesses}}</td>
        <td>{{#updatable}}<form method="post" action="/share/update" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input \
        type="hidden" name="id" value="{{id}}">
        <button type="submit" aria-label="Update the link {{label}} with today's records">Update</button></form>{{/updatable}}
        {{#active}}<form method="post" action="/share/revoke" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" \
        name="id" value="{{id}}">
        <button type="submit" class="delete" aria-label="Revoke the link {{label}}">Revoke</button></form>{{/active}}</td></tr>{{/links}}</tbody>
        </table></div>
        {{/hasLinks}}
        {{/connected}}
        </section>
        """

    static let created = """
        <section class="card" aria-labelledby="created-heading">
        <h2 id="created-heading">Your link{{#label}}: “{{label}}”{{/label}}</h2>
        <p>Show this QR code to the person you share with, or send them the link. It {{expires}}.{{#passcode}} Give them the passcode \
        separately.{{/passcode}}</p>
        <figure class="qr-code">{{{qr}}}<figcaption>Scanned with a phone's camera, it opens the records in the browser.</figcaption></figure>
        <p><label for="created-viewer">Link to open in a browser</label></p>
        <p><textarea id="created-viewer" readonly rows="3">{{viewerLink}}</textarea></p>
        <p><label for="created-link">SMART Health Link (for apps that read them)</label></p>
        <p><textarea id="created-link" readonly rows="3">{{link}}</textarea></p>
        <p>This page does not keep the link: copy it now. <a href="/share">Back to Share</a></p>
        </section>
        """

    static let open = """
        <section class="card" aria-labelledby="open-heading">
        <h2 id="open-heading">Open a shared link</h2>
        <p>Paste a link someone shared with you (<code>shlink:/…</code>, or an address ending in <code>#shlink:/…</code>), \
        or upload a photo of its QR code.</p>
        <form method="post" action="/share/open" enctype="multipart/form-data" class="fields" aria-labelledby="open-heading">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="open-link">Link</label><textarea id="open-link" name="link" rows="3"></textarea>
        <label for="open-image">Or its QR code (PNG or JPEG)</label><input id="open-image" name="image" type="file" accept="image/png,image/jpeg">
        <label for="open-passcode">Passcode (if it has one)</label><input id="open-passcode" name="passcode" autocomplete="off">
        <label for="open-recipient">Your name (the person who shared it sees it)</label><input id="open-recipient" name="recipient" required \
        maxlength="200" autocomplete="name">
        <span></span><button type="submit">Preview</button>
        </form>
        </section>
        """

    static let preview = """
        <section class="card" aria-labelledby="preview-heading">
        <h2 id="preview-heading">{{#label}}“{{label}}”{{/label}}{{^label}}Shared link{{/label}}: {{count}} file(s)</h2>
        {{#expires}}<p>{{expires}}</p>{{/expires}}
        <ul class="files">{{#files}}<li><strong>File {{number}}: {{type}}</strong>
        {{#problem}}<p class="problem">{{problem}}</p>{{/problem}}
        {{#resources}}<p>{{#bundleType}}A {{bundleType}} with {{/bundleType}}{{resources}}</p>{{/resources}}
        {{#cards}}<p class="{{#valid}}verified{{/valid}}{{^valid}}problem{{/valid}}">{{verdict}}: issued by {{issuer}}{{#reasons}} \
        ({{reasons}}){{/reasons}}</p>{{/cards}}
        </li>{{/files}}</ul>
        {{^allValid}}<p class="problem" role="alert">Some of these files do not verify: they are not stored; the others are.</p>{{/allValid}}
        <form method="post" action="/share/import" class="fields">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="opened" value="{{opened}}">
        <span></span><button type="submit">Import into my records</button>
        </form>
        <p><a href="/share">Back to Share</a></p>
        </section>
        """
}
