import OpenHealthKit

/// The Settings page: the units values are shown in (stored as the store's preferred units,
/// so Summary, Browse and every app that asks use them), in a CSRF-protected form.
struct SettingsView {
    let pages: PageRenderer
    let store: HKHealthStore

    func render(csrf: String) async throws -> String {
        let current = try await store.preferredUnits(for: Set(SettingsUnits.all.flatMap(\.types)))
        let groups: [[String: Any]] = SettingsUnits.all.map { group in
            let unit = group.types.first.flatMap { current[$0] }
            let chosen = group.options.first { $0.unit == unit }?.id
            let options: [[String: Any]] = group.options.map { ["id": $0.id, "label": $0.label, "selected": $0.id == chosen] }
            return ["id": group.id, "label": group.label, "options": options, "isDefault": chosen == nil,
                    "defaultLabel": "default (\(unit?.unitString ?? "–"))"]
        }
        return pages.render("settings", ["groups": groups, "csrf": csrf])
    }

    static let template = """
        <section class="card" aria-labelledby="units-heading">
        <h2 id="units-heading">Units</h2>
        <p>Values are shown in these units on every page, and apps that ask for your preferred units get them too.</p>
        <form method="post" action="/settings" class="fields">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#groups}}<label for="unit-{{id}}">{{label}}</label>
        <select id="unit-{{id}}" name="{{id}}">
        {{#isDefault}}<option value="default" selected>{{defaultLabel}}</option>{{/isDefault}}
        {{#options}}<option value="{{id}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/options}}
        </select>
        {{/groups}}
        <span></span><button type="submit">Save units</button>
        </form>
        </section>
        <section class="card" aria-labelledby="deleted-heading">
        <h2 id="deleted-heading">Recently deleted</h2>
        <p>Deleted samples are kept for 30 days. <a href="/recently-deleted">See and restore them</a>.</p>
        </section>
        """
}
