import FhirBlocks
import Foundation

/// The wallet's part of the Sharing page: permissions granted by me and to me (scope and
/// window), the grant form and revoke buttons, and "who saw my data" with whether the audit log
/// verified. Without a wallet it says how to connect one.
struct SharingWalletView {
    let pages: PageRenderer

    /// The section without a wallet.
    func notConnected() -> String {
        pages.render("wallet", ["connected": false])
    }

    /// The section when the wallet's server could not be read.
    func unavailable(csi: String, problem: SharingWalletProblem) -> String {
        pages.render("wallet", ["connected": true, "csi": csi, "problem": problem.description])
    }

    /// The section over a snapshot of the wallet.
    func render(csi: String, _ snapshot: SharingWallet.Snapshot, csrf: String, today: String, nextYear: String) -> String {
        let granted: [[String: Any]] = snapshot.grantedByMe.map { record in
            var row = Self.row(record)
            row["grantees"] = record.permissionedCsiGuids.joined(separator: ", ")
            return row
        }
        let revocable = Array(Set(snapshot.grantedByMe.filter { $0.status != "revoked" }.flatMap(\.permissionedCsiGuids))).sorted()
        let given: [[String: Any]] = snapshot.givenToMe.map { record in
            var row = Self.row(record)
            row["grantor"] = record.grantingCsiGuid
            return row
        }
        // Others' actions, one page, newest first; the wallet's own (this page's reads among
        // them) are left out by the server (`agent:not`), and here too if a server sends them.
        let others = snapshot.events.filter { $0.who != csi }
        let events: [[String: Any]] = others.map { event in
            let what = event.what.filter { $0 != csi }
            var row: [String: Any] = ["when": event.recorded, "who": event.who, "action": event.action,
                                      "what": what.isEmpty ? "your data" : what.joined(separator: ", "),
                                      "outcome": event.succeeded ? "done" : "refused or failed"]
            // A shared link request in words; absent (not empty) for the others.
            if let sentence = event.sentence { row["sentence"] = sentence }
            return row
        }
        let older = snapshot.olderEvents.map { "/sharing?auditBefore=\($0)" } ?? ""
        var context: [String: Any] = [
            "connected": true, "ready": true, "csi": csi, "csrf": csrf, "granted": granted, "hasGranted": !granted.isEmpty,
            "revocable": revocable, "given": given, "hasGiven": !given.isEmpty, "events": events, "hasEvents": !events.isEmpty,
            "ownEvents": "The entries of your own wallet's actions (including this page's reads) are not listed.",
            "olderEvents": older, "hasOlderEvents": !older.isEmpty, "isOlderPage": snapshot.eventsCursor != nil,
            "today": today, "nextYear": nextYear,
            "confidentiality": SharingGrantForm.confidentialityLevels.map { ["code": $0.code, "label": $0.label, "selected": $0.code == "N"] },
        ]
        switch snapshot.verification {
        case .success(let report) where report.isIntact:
            context["verified"] = "The audit log verified: \(report.entriesChecked) of \(report.treeSize) entries checked against "
                + "the latest signed checkpoint (entries checked on an earlier visit through its consistency with the one checked then); "
                + "nothing was rewritten or removed. To re-check every entry from the start: health audit verify --server URL."
        case .success(let report):
            context["notVerified"] = "The audit log did NOT verify: \(report.firstProblem.map { "\($0)" } ?? "a problem was found"). "
                + "Entries may have been changed or removed after they were written; do not rely on this list."
        case .failure(let problem):
            context["notVerified"] = "The audit log could not be verified. \(problem.description)"
        }
        return pages.render("wallet", context)
    }

    private static func row(_ record: PermissionRecord) -> [String: Any] {
        var scope = "no scope"
        if let heart = record.heartScope {
            scope = (try? PermissionScope(heartScope: heart).description) ?? "\(heart.resourceScope) \(heart.accessType ?? "read")"
        }
        return ["id": record.permissionId ?? "–", "scope": scope, "from": record.startTime, "until": record.endTime,
                "status": record.status ?? "active"]
    }

    static let template = """
        <section class="card" aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">Wallet</h2>
        {{^connected}}
        <p>No wallet is connected. To see and change who may see your data on a FhirBlocks server, start
        <code>health ui --identity FILE --server URL</code> with the identity file of a wallet
        (<code>health wallet register</code> makes one).</p>
        {{/connected}}
        {{#connected}}
        <p>Wallet <code>{{csi}}</code></p>
        {{#problem}}<p class="problem" role="alert">{{problem}}</p>{{/problem}}
        {{/connected}}
        {{#ready}}
        <h3 id="granted-heading">Granted by me</h3>
        {{#hasGranted}}
        <div class="scroll"><table aria-labelledby="granted-heading">
        <thead><tr><th scope="col">To</th><th scope="col">Scope</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Status</th></tr></thead>
        <tbody>{{#granted}}<tr><td><code>{{grantees}}</code></td><td>{{scope}}</td>\
        <td>{{from}}</td><td>{{until}}</td><td>{{status}}</td></tr>{{/granted}}</tbody>
        </table></div>
        {{#revocable}}<form method="post" action="/sharing/wallet/revoke" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="grantee" value="{{.}}">
        <button type="submit" aria-label="Revoke every permission granted to {{.}}">Revoke {{.}}</button></form>{{/revocable}}
        {{/hasGranted}}
        {{^hasGranted}}<p>You have not granted anyone access.</p>{{/hasGranted}}
        <h3 id="given-heading">Granted to me</h3>
        {{#hasGiven}}
        <div class="scroll"><table aria-labelledby="given-heading">
        <thead><tr><th scope="col">By</th><th scope="col">Scope</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Status</th></tr></thead>
        <tbody>{{#given}}<tr><td><code>{{grantor}}</code></td><td>{{scope}}</td><td>{{from}}</td><td>{{until}}</td><td>{{status}}</td></tr>{{/given}}</tbody>
        </table></div>
        {{/hasGiven}}
        {{^hasGiven}}<p>No one has granted you access.</p>{{/hasGiven}}
        <h3 id="grant-heading">Grant access</h3>
        <form method="post" action="/sharing/wallet/grant" class="fields" aria-labelledby="grant-heading">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="grant-grantee">To (csiGuid)</label><input id="grant-grantee" name="grantee" required pattern="[0-9A-Fa-f-]{36}" autocomplete="off">
        <label for="grant-resource">Resource type (* for all)</label><input id="grant-resource" name="resource" value="*" required>
        <label for="grant-access">Access</label>\
        <select id="grant-access" name="access"><option value="read">read</option><option value="write">write</option></select>
        <label for="grant-conf">Up to confidentiality</label>\
        <select id="grant-conf" name="confidentiality">{{#confidentiality}}\
        <option value="{{code}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/confidentiality}}</select>
        <label for="grant-from">From</label><input id="grant-from" name="from" type="date" value="{{today}}" required>
        <label for="grant-until">Until (not included)</label><input id="grant-until" name="until" type="date" value="{{nextYear}}" required>
        <span></span><button type="submit">Grant</button>
        </form>
        <h3 id="audit-heading">Who saw my data</h3>
        {{#verified}}<p class="verified" role="status">{{verified}}</p>{{/verified}}
        {{#notVerified}}<p class="problem" role="alert">{{notVerified}}</p>{{/notVerified}}
        {{#hasEvents}}
        <div class="scroll"><table aria-labelledby="audit-heading">
        <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Did</th><th scope="col">What</th><th scope="col">Outcome</th></tr></thead>
        <tbody>{{#events}}<tr><td>{{when}}</td>{{#sentence}}<td colspan="3">{{sentence}}</td>{{/sentence}}\
        {{^sentence}}<td><code>{{who}}</code></td><td>{{action}}</td><td>{{what}}</td>{{/sentence}}<td>{{outcome}}</td></tr>{{/events}}</tbody>
        </table></div>
        {{/hasEvents}}
        {{^hasEvents}}<p>{{#hasOlderEvents}}No one else's actions in this part of the log.{{/hasOlderEvents}}\
        {{^hasOlderEvents}}{{^isOlderPage}}No one else has used your data.{{/isOlderPage}}\
        {{#isOlderPage}}No older entries.{{/isOlderPage}}{{/hasOlderEvents}}</p>{{/hasEvents}}
        {{#hasOlderEvents}}<p><a href="{{olderEvents}}">Older entries</a></p>{{/hasOlderEvents}}
        {{#isOlderPage}}<p><a href="/sharing">Newest entries</a></p>{{/isOlderPage}}
        {{#ownEvents}}<p>{{ownEvents}}</p>{{/ownEvents}}
        {{/ready}}
        </section>
        """
}

/// The grant form's fields, checked with the protocol core's rules before anything is sent.
struct SharingGrantForm {
    static let confidentialityLevels: [(code: String, label: String)] = [
        ("U", "U: unrestricted"), ("L", "L: low"), ("M", "M: moderate"), ("N", "N: normal"), ("R", "R: restricted"), ("V", "V: very restricted"),
    ]

    let grantee: CsiGuid
    let scope: PermissionScope
    let window: TimeWindow

    /// Parses the form; the error says in plain words what is wrong.
    init(_ form: FormFields) throws(SharingWalletProblem) {
        guard let grantee = form["grantee"].flatMap({ CsiGuid($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw SharingWalletProblem("The grantee is not a csiGuid (a 36-character UUID); nothing was granted.")
        }
        let access = form["access"] ?? ""
        guard ["read", "write"].contains(access) else { throw SharingWalletProblem("Choose read or write access; nothing was granted.") }
        let confidentiality = form["confidentiality"] ?? ""
        guard Self.confidentialityLevels.contains(where: { $0.code == confidentiality }) else {
            throw SharingWalletProblem("Choose a confidentiality level; nothing was granted.")
        }
        let heart = HeartScope(accessType: access, confidentialityScope: confidentiality, permissionType: PermissionType.patient.rawValue,
                               resourceScope: (form["resource"] ?? "").trimmingCharacters(in: .whitespaces), sensitivityScope: [])
        do {
            scope = try PermissionScope(heartScope: heart)
        } catch {
            throw SharingWalletProblem(
                "The resource type is not valid (a FHIR type such as Observation, or *): \(error.errorDescription); nothing was granted.")
        }
        guard let from = form["from"].flatMap(Self.day), let until = form["until"].flatMap(Self.day) else {
            throw SharingWalletProblem("The dates must be days (YYYY-MM-DD); nothing was granted.")
        }
        window = TimeWindow(notBefore: from, notAfter: until)
        guard !window.isEmpty else { throw SharingWalletProblem("The end date must be after the start date; nothing was granted.") }
        self.grantee = grantee
    }

    /// A day (`YYYY-MM-DD`) as the timestamp of its start in UTC.
    static func day(_ text: String) -> Timestamp? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components),
              calendar.dateComponents([.year, .month, .day], from: date) == components else { return nil }
        return Timestamp(millisecondsSince1970: Int64(date.timeIntervalSince1970) * 1000)
    }
}
