import Foundation
import HealthPresentation
import Hummingbird
import Mustache
import OpenHealthKit

/// The "Add data" page of a type (`/browse/TYPE/add`): one form, no script, with the session's
/// CSRF token; a quantity with its unit (weight in kg, lb or st), a category value by name, a
/// blood-pressure reading, or a workout with its energy and distance. What was typed stays in the
/// form when it is refused, with the reason above it.
struct AddDataView {
    let pages: PageRenderer
    let text: SampleText

    /// The form of `type`, filled with `form`'s values (after a refusal) or the defaults (now).
    func render(_ type: HKSampleType, kind: AddDataInput.Kind, form: FormFields?, csrf: String, now: Date) -> String {
        let calendar = text.calendar
        func value(_ name: String) -> String { form?[name] ?? "" }
        var context: [String: Any] = [
            "csrf": csrf, "typeName": type.identifier, "typeLabel": SampleText.name(of: type), "addTitle": HealthTypes.addTitle(of: type),
            "typeHref": StoreCatalog.href(type),
            "start": form?["start"] ?? AddDataInput.fieldText(now, calendar: calendar), "end": value("end"),
            "zone": calendar.timeZone.abbreviation(for: now) ?? calendar.timeZone.identifier,
        ]
        switch kind {
        case .quantity(let quantityType):
            let shown = HealthUnits.label(for: text.formatter.displayUnit(for: quantityType), type: quantityType)
            let chosen = form?["unit"] ?? shown
            context["quantity"] = [
                "value": value("value"),
                "units": HealthUnits.acceptedUnits(for: quantityType).map { ["value": $0, "label": $0.isEmpty ? "(no unit)" : $0, "selected": $0 == chosen] },
            ]
        case .category(let categoryType):
            let values = CategoryValues.values(for: categoryType) ?? []
            if CategoryValues.isValueless(categoryType) {
                context["valueless"] = true
            } else {
                let chosen = value("value")
                context["category"] = ["values": values.map { ["value": $0.name, "label": $0.label, "selected": $0.name == chosen] }]
            }
        case .bloodPressure:
            context["bloodPressure"] = ["systolic": value("systolic"), "diastolic": value("diastolic")]
        case .workout:
            let chosen = form?["activity"] ?? HKWorkoutActivityType.walking.caseName
            let energyUnit = form?["energyUnit"]
                ?? (text.formatter.displayUnit(for: HKQuantityType(.activeEnergyBurned)) == .jouleUnit(with: .kilo) ? "kJ" : "kcal")
            let distanceUnit = form?["distanceUnit"] ?? (text.formatter.displayUnit(for: HKQuantityType(.distanceWalkingRunning)) == .mile() ? "mi" : "km")
            context["workout"] = [
                "activities": AddDataInput.activities.map { ["value": $0.caseName, "label": $0.name, "selected": $0.caseName == chosen] },
                "energy": value("energy"), "distance": value("distance"),
                "energyUnits": AddDataInput.energyUnits.map { ["value": $0, "selected": $0 == energyUnit] },
                "distanceUnits": AddDataInput.distanceUnits.map { ["value": $0, "selected": $0 == distanceUnit] },
            ]
        }
        return Self.render("addData", context)
    }

    /// The page for a type the form does not add.
    func notAddable(_ type: HKSampleType) -> String {
        Self.render("notAddable", ["typeLabel": SampleText.name(of: type), "typeHref": StoreCatalog.href(type)])
    }

    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, template) in templates { try? library.register(template, named: name) }
        return library
    }()

    static func render(_ name: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: name) ?? ""
    }

    static let templates: [String: String] = ["addData": form, "notAddable": notAddableTemplate]

    static let form = """
        <p><a href="{{typeHref}}">Back to {{typeLabel}}</a> · <a href="/browse">All types</a></p>
        <section class="card" aria-labelledby="add-heading">
        <h2 id="add-heading">{{addTitle}}</h2>
        <p>Saved in your store as yours (the store's owner). Dates and times are in {{zone}}.</p>
        <form method="post" action="/browse/{{typeName}}/add" class="fields add">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#quantity}}
        <label for="add-value">Value</label><input id="add-value" name="value" inputmode="decimal" required value="{{value}}">
        <label for="add-unit">Unit</label><select id="add-unit" \
        name="unit">{{#units}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/units}}</select>
        {{/quantity}}
        {{#category}}
        <label for="add-value">Value</label><select id="add-value" \
        name="value">{{#values}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/values}}</select>
        {{/category}}
        {{#bloodPressure}}
        <label for="add-systolic">Systolic (mmHg)</label><input id="add-systolic" name="systolic" inputmode="numeric" required value="{{systolic}}">
        <label for="add-diastolic">Diastolic (mmHg)</label><input id="add-diastolic" name="diastolic" inputmode="numeric" required value="{{diastolic}}">
        {{/bloodPressure}}
        {{#workout}}
        <label for="add-activity">Activity</label><select id="add-activity" \
        name="activity">{{#activities}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/activities}}</select>
        {{/workout}}
        <label for="add-start">Start</label><input id="add-start" name="start" type="datetime-local" required value="{{start}}">
        <label for="add-end">End{{^workout}} <small>(optional)</small>{{/workout}}</label><input id="add-end" name="end" \
        type="datetime-local"{{#workout}} required{{/workout}} value="{{end}}">
        {{#workout}}
        <label for="add-energy">Active energy <small>(optional)</small></label><span class="amount"><input id="add-energy" name="energy" \
        inputmode="decimal" value="{{energy}}">
        <select name="energyUnit" \
        aria-label="Energy unit">{{#energyUnits}}<option{{#selected}} selected{{/selected}}>{{value}}</option>{{/energyUnits}}</select></span>
        <label for="add-distance">Distance <small>(optional)</small></label><span class="amount"><input id="add-distance" name="distance" \
        inputmode="decimal" value="{{distance}}">
        <select name="distanceUnit" \
        aria-label="Distance unit">{{#distanceUnits}}<option{{#selected}} selected{{/selected}}>{{value}}</option>{{/distanceUnits}}</select></span>
        {{/workout}}
        <span></span><button type="submit">{{addTitle}}</button>
        </form>
        </section>
        """

    static let notAddableTemplate = """
        <section class="card" aria-labelledby="add-heading">
        <h2 id="add-heading">{{typeLabel}} is not added here</h2>
        <p>The page adds quantities, category values, blood pressure and workouts; {{typeLabel}} comes from the apps and imports that write it.
        <a href="{{typeHref}}">Back to {{typeLabel}}</a></p>
        </section>
        """
}

extension HealthWebApp {
    /// `GET /browse/TYPE/add` (the form; `?saved=UUID` after a save says what was saved) and
    /// `POST /browse/TYPE/add` (saves the sample as the store's owner and answers 303 back to the
    /// form; a refused form comes back, filled in, with its reason and status 400).
    func addDataRoutes(to router: Router<BasicRequestContext>) {
        router.get("/browse/:type/add") { request, context in
            let type = try addableType(context)
            let text = try await sampleText()
            let view = AddDataView(pages: pages, text: text)
            guard let kind = AddDataInput.kind(of: type) else {
                return pages.page(title: HealthTypes.addTitle(of: type), section: .browse, content: view.notAddable(type))
            }
            var notice: String?
            if let saved = request.uri.queryParameters["saved"].flatMap({ UUID(uuidString: String($0)) }) {
                let found = try await HKSampleQueryDescriptor(predicates: [.sample(type: type, predicate: HKQuery.predicateForObject(with: saved))],
                                                              sortDescriptors: [], limit: 1).result(for: store)
                notice = found.first.map { "Saved \(SampleText.name(of: type)): \(text.value(of: $0)), \(text.date($0.startDate))." }
            }
            return pages.page(title: HealthTypes.addTitle(of: type), section: .browse,
                              content: view.render(type, kind: kind, form: nil, csrf: csrf(request), now: clock()), notice: notice)
        }
        router.post("/browse/:type/add") { request, context in
            let type = try addableType(context)
            guard let kind = AddDataInput.kind(of: type) else {
                throw HTTPError(.badRequest, message: "\(AddDataError.notAddable(type: SampleText.name(of: type))); nothing was saved.")
            }
            let form = try await formFields(request)
            let text = try await sampleText()
            let now = clock()
            do throws(AddDataError) {
                let sample = try AddDataInput.sample(kind, form: form, formatter: text.formatter, calendar: calendar, now: now)
                do {
                    try await store.save(sample)
                } catch let error as HKError {
                    throw AddDataError.refusedByStore(error.localizedDescription)
                } catch {
                    throw AddDataError.refusedByStore("\(error)")
                }
                return Self.redirect("/browse/\(type.identifier)/add?saved=\(sample.uuid.uuidString)")
            } catch {
                return pages.page(title: HealthTypes.addTitle(of: type), section: .browse,
                                  content: AddDataView(pages: pages, text: text).render(type, kind: kind, form: form, csrf: csrf(request), now: now),
                                  problem: "\(error.description); nothing was saved.", status: .badRequest)
            }
        }
    }

    private func addableType(_ context: BasicRequestContext) throws -> HKSampleType {
        guard let name = context.parameters.get("type"), let type = HKObjectType.sampleType(named: name) else {
            throw HTTPError(.notFound, message: "There is no such type.")
        }
        return type
    }
}
