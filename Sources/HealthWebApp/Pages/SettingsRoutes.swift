import Hummingbird
import OpenHealthKit

extension HealthWebApp {
    /// `GET /settings` and `POST /settings`: the units, stored as the store's preferred units.
    /// A form with a value that is not one of the choices is refused whole (nothing is stored).
    func addSettingsRoutes(to router: Router<BasicRequestContext>) {
        router.get("/settings") { request, _ in
            let notice = request.uri.queryParameters["saved"].map { _ in "Units saved; every page now shows values in them." }
            return try await pages.page(title: "Settings", section: .settings,
                                        content: SettingsView(pages: pages, store: store).render(csrf: csrf(request)), notice: notice)
        }
        router.post("/settings") { request, _ in
            let form = try await formFields(request)
            var changes: [(HKQuantityType, HKUnit?)] = []
            for group in SettingsUnits.all {
                guard let value = form[group.id] else { continue }
                let unit: HKUnit?
                do throws(SettingsUnitsError) {
                    unit = try group.unit(forFormValue: value)
                } catch {
                    throw HTTPError(.badRequest, message: "The form chose a unit for \(error.group) that is not one of the choices; nothing was changed.")
                }
                changes += group.types.map { ($0, unit) }
            }
            for (type, unit) in changes { try store.setPreferredUnit(unit, for: type) }
            return Self.redirect("/settings?saved=1")
        }
    }
}
