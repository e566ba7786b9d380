import Foundation
import Hummingbird
import OpenHealthKit

/// Deleting asks first and can be undone: the confirmation page of a deletion (one sample, or a
/// type's samples between two days), and the "Recently deleted" page, where the store keeps
/// deleted samples for 30 days and the owner restores them. No script: links and forms only,
/// every POST with the session's CSRF token.
struct RecentlyDeletedView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText
    /// How many of a range's samples the confirmation page lists.
    static let confirmationListLimit = 10

    /// What a deletion form names: one sample, or a type's samples from one day to another (both included).
    enum Target {
        case sample(UUID)
        case days(from: Date, to: Date, fromText: String, toText: String)
    }

    /// The target a form or a query names; nil when it names neither a sample nor two valid days.
    static func target(uuid: String?, from: String?, to: String?, calendar: Calendar) -> Target? {
        if let uuid { return UUID(uuidString: uuid).map(Target.sample) }
        guard let from, let to, let start = day(from, calendar: calendar), let last = day(to, calendar: calendar), last >= start,
              let end = calendar.date(byAdding: .day, value: 1, to: last) else { return nil }
        return .days(from: start, to: end, fromText: from, toText: to)
    }

    /// The start of the day `text` (YYYY-MM-DD) names in `calendar`.
    static func day(_ text: String, calendar: Calendar) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2], (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// The samples of `type` a target names, newest first.
    func samples(of type: HKSampleType, _ target: Target) async throws -> [HKSample] {
        let predicate: NSPredicate
        switch target {
        case .sample(let uuid): predicate = HKQuery.predicateForObject(with: uuid)
        case .days(let from, let to, _, _): predicate = HKQuery.predicateForSamples(withStart: from, end: to, options: .strictStartDate)
        }
        return try await HKSampleQueryDescriptor(predicates: [.sample(type: type, predicate: predicate)],
                                                 sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)]).result(for: store)
    }

    /// The confirmation page's content: what will be deleted, a destructive "Delete" and a "Cancel".
    func confirmation(type: HKSampleType, target: Target, matches: [HKSample], csrf: String) -> String {
        var fields: [[String: String]] = []
        let question: String
        switch target {
        case .sample(let uuid):
            fields.append(["name": "uuid", "value": uuid.uuidString])
            question = "This \(SampleText.name(of: type)) sample will be deleted."
        case .days(_, _, let fromText, let toText):
            fields += [["name": "from", "value": fromText], ["name": "to", "value": toText]]
            let count = matches.count
            question = "\(count) \(SampleText.name(of: type)) sample\(count == 1 ? "" : "s") from \(fromText) to \(toText) will be deleted."
                + (count > Self.confirmationListLimit ? " The newest \(Self.confirmationListLimit) are listed." : "")
        }
        let rows = matches.prefix(Self.confirmationListLimit).map(row)
        return pages.render("deleteConfirm", [
            "question": question, "samples": rows, "hasSamples": !rows.isEmpty, "csrf": csrf, "fields": fields,
            "typeName": type.identifier, "typeHref": StoreCatalog.href(type), "typeLabel": SampleText.name(of: type),
            "buttonLabel": matches.count == 1 ? "Delete" : "Delete \(matches.count) samples",
        ])
    }

    /// The "Recently deleted" page's content.
    func list(csrf: String) async throws -> String {
        let items = try await store.recentlyDeletedItems()
        let rows: [[String: Any]] = items.map { item in
            var fields = row(item.sample)
            fields["id"] = String(item.id)
            fields["type"] = SampleText.name(of: item.sample.sampleType)
            fields["deleted"] = text.date(item.deletedAt)
            let sample = item.sample
            fields["when"] = sample.startDate == sample.endDate ? text.date(sample.startDate)
                : "\(text.date(sample.startDate)) – \(text.date(sample.endDate))"
            return fields
        }
        return pages.render("recentlyDeleted", ["items": rows, "hasItems": !rows.isEmpty, "csrf": csrf])
    }

    private func row(_ sample: HKSample) -> [String: Any] {
        ["type": SampleText.name(of: sample.sampleType), "value": text.value(of: sample), "start": text.date(sample.startDate),
         "end": text.date(sample.endDate), "source": sample.sourceRevision.source.name]
    }

    static let confirmTemplate = """
        <section class="card" aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">What will be deleted</h2>
        <p>{{question}} Deleted samples are kept in <a href="/recently-deleted">Recently deleted</a> for 30 days, where you can restore them.</p>
        {{#hasSamples}}
        <div class="scroll"><table>
        <thead><tr><th scope="col">Type</th><th scope="col">Value</th><th scope="col">Start</th><th scope="col">End</th><th scope="col">Source</th></tr></thead>
        <tbody>{{#samples}}<tr><td>{{type}}</td><td>{{value}}</td><td>{{start}}</td><td>{{end}}</td><td>{{source}}</td></tr>{{/samples}}</tbody>
        </table></div>
        <form method="post" action="/browse/{{typeName}}/delete" class="actions">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="confirm" value="yes">
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/fields}}
        <button type="submit" class="danger">{{buttonLabel}}</button>
        <a class="cancel" href="{{typeHref}}">Cancel</a>
        </form>
        {{/hasSamples}}
        {{^hasSamples}}<p>Nothing matches: nothing will be deleted. <a href="{{typeHref}}">Back to {{typeLabel}}</a></p>{{/hasSamples}}
        </section>
        """

    static let listTemplate = """
        <p><a href="/browse">All types</a></p>
        <section class="card" aria-labelledby="deleted-heading">
        <h2 id="deleted-heading">Deleted in the last 30 days</h2>
        <p>Deleted samples stay here, encrypted like the rest of the store, for 30 days. \
        Restoring one adds it back as a new sample with the same value, dates, source and details.</p>
        {{#hasItems}}
        <ul class="deleted">
        {{#items}}<li><div><strong>{{type}}</strong> {{value}}<br>
        <span class="muted">{{when}} · {{source}} · deleted {{deleted}}</span></div>
        <form method="post" action="/recently-deleted/restore">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}">
        <button type="submit" class="restore" aria-label="Restore the {{type}} sample of {{start}}">Restore</button></form></li>
        {{/items}}
        </ul>
        {{/hasItems}}
        {{^hasItems}}<p>Nothing was deleted in the last 30 days.</p>{{/hasItems}}
        </section>
        """
}

extension HealthWebApp {
    /// The deletion routes (confirm first, then delete) and the "Recently deleted" page.
    func addRecentlyDeletedRoutes(to router: Router<BasicRequestContext>) {
        router.get("/browse/:type/delete") { request, context in
            let type = try deletionType(context)
            let query = request.uri.queryParameters
            guard let target = RecentlyDeletedView.target(uuid: query["uuid"].map(String.init), from: query["from"].map(String.init),
                                                          to: query["to"].map(String.init), calendar: calendar) else {
                throw HTTPError(.badRequest, message: "The link names neither a sample nor two days (YYYY-MM-DD); nothing was deleted.")
            }
            let view = RecentlyDeletedView(store: store, pages: pages, text: try await sampleText())
            let matches = try await view.samples(of: type, target)
            if case .sample = target, matches.isEmpty {
                throw HTTPError(.notFound, message: "There is no such sample; nothing was deleted.")
            }
            return pages.page(title: "Delete \(SampleText.name(of: type))?", section: .browse,
                              content: view.confirmation(type: type, target: target, matches: matches, csrf: csrf(request)))
        }
        router.post("/browse/:type/delete") { request, context in
            let type = try deletionType(context)
            let form = try await formFields(request)
            guard let target = RecentlyDeletedView.target(uuid: form["uuid"], from: form["from"], to: form["to"], calendar: calendar) else {
                throw HTTPError(.badRequest, message: "The form did not name a sample; nothing was deleted.")
            }
            // A form without the confirmation (an old page) shows the question instead of deleting.
            guard form["confirm"] == "yes" else {
                let view = RecentlyDeletedView(store: store, pages: pages, text: try await sampleText())
                let matches = try await view.samples(of: type, target)
                return pages.page(title: "Delete \(SampleText.name(of: type))?", section: .browse,
                                  content: view.confirmation(type: type, target: target, matches: matches, csrf: csrf(request)))
            }
            let count: Int
            switch target {
            case .sample(let uuid):
                count = try await store.deleteObjects(withUUIDs: [uuid])
            case .days(let from, let to, _, _):
                count = try await store.deleteObjects(of: type, predicate: HKQuery.predicateForSamples(withStart: from, end: to,
                                                                                                     options: .strictStartDate))
            }
            return Self.redirect("\(StoreCatalog.href(type))?deleted=\(count)")
        }
        router.get("/recently-deleted") { request, _ in
            let notice = request.uri.queryParameters["restored"].flatMap { Int(String($0)) }.map {
                "Restored \($0) sample\($0 == 1 ? "" : "s"): \($0 == 1 ? "it is" : "they are") back in Browse."
            }
            let view = RecentlyDeletedView(store: store, pages: pages, text: try await sampleText())
            return try await pages.page(title: "Recently deleted", section: .browse, content: view.list(csrf: csrf(request)), notice: notice)
        }
        router.post("/recently-deleted/restore") { request, _ in
            let form = try await formFields(request)
            guard let id = form["id"].flatMap(Int64.init) else {
                throw HTTPError(.badRequest, message: "The form did not name a deleted sample; nothing was restored.")
            }
            // The store refuses an ID that is not in the list (errorInvalidArgument), without
            // reading the whole list first.
            let restored: [UUID]
            do {
                restored = try await store.restoreRecentlyDeleted([id])
            } catch let error as HKError where error.code == .errorInvalidArgument {
                throw HTTPError(.notFound, message: "That sample is no longer in Recently deleted (restored already, or deleted more than 30 days ago).")
            }
            return Self.redirect("/recently-deleted?restored=\(restored.count)")
        }
    }

    private func deletionType(_ context: BasicRequestContext) throws -> HKSampleType {
        guard let name = context.parameters.get("type"), let type = HKObjectType.sampleType(named: name) else {
            throw HTTPError(.notFound, message: "There is no such type.")
        }
        return type
    }
}
