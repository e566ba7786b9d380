import ArgumentParser
import CommonSupport
import Foundation
import HealthPresentation
import OpenHealthKit

/// How `health store query` writes each kind of sample the store keeps, as a table line and as
/// a JSON object: quantities, categories, correlations and workouts through ``SampleFormatter``,
/// and what it does not describe (workout routes, clinical records, verifiable clinical records)
/// here.
enum QueryOutput {
    /// The table lines of a page of samples, in ``HealthFormatter``'s words and columns (when,
    /// in local time with the zone; the value; the source), quantities aligned on the right.
    /// `routes` are the routes of the page's workouts, by workout UUID; `formatter` has the
    /// store owner's units (``HealthFormatter/forStore(_:types:)``).
    /// `medications` names the owner's medications by concept, for dose events.
    static func lines(_ page: [HKSample], unit: HKUnit?, routes: [UUID: [HKWorkoutRoute]] = [:], formatter: HealthFormatter = .local,
                      medications: [HKHealthConceptIdentifier: String] = [:]) -> [String] {
        let rows = page.map { sample in
            [formatter.span(from: sample.startDate, to: sample.endDate),
             valueText(sample, unit: unit, routes: routes[sample.uuid] ?? [], formatter: formatter, medications: medications),
             "[\(sample.sourceRevision.source.name)]"]
        }
        return HealthFormatter.columns(rows, rightAligned: page.allSatisfy { $0 is HKQuantitySample } ? [1] : [])
    }

    /// The value part of a table line.
    static func valueText(_ sample: HKSample, unit: HKUnit?, routes: [HKWorkoutRoute], formatter: HealthFormatter = .local,
                          medications: [HKHealthConceptIdentifier: String] = [:]) -> String {
        switch sample {
        case let dose as HKMedicationDoseEvent:
            return MeasurementText.doseText(dose, name: medications[dose.medicationConceptIdentifier])
        case let workout as HKWorkout:
            let text = SampleFormatter.valueText(workout, unit: unit, formatter: formatter)
            let locations = routes.reduce(0) { $0 + $1.count }
            return routes.isEmpty ? text : text + ", route of \(locations) location\(locations == 1 ? "" : "s")"
        case let route as HKWorkoutRoute:
            return "route of \(route.count) location\(route.count == 1 ? "" : "s")"
        case let record as HKClinicalRecord:
            guard let resource = record.fhirResource else { return record.displayName }
            return "\(record.displayName) (\(resource.resourceType.rawValue) \(resource.identifier))"
        case let record as HKVerifiableClinicalRecord:
            let items = record.itemNames.isEmpty ? record.recordTypes.joined(separator: ", ") : record.itemNames.joined(separator: ", ")
            return "\(items), issued by \(record.issuerIdentifier) to \(record.subject.fullName)"
        default:
            return SampleFormatter.valueText(sample, unit: unit, formatter: formatter)
        }
    }

    /// The JSON object of a sample: ``SampleFormatter/jsonObject(_:unit:)``'s members and, by
    /// kind, a workout's `routes` (each with its `uuid` and `locations`, a count), a route's
    /// `locations`, a clinical record's `displayName` and `fhirResource` (its `resourceType`,
    /// `identifier`, `fhirVersion`, `sourceURL` and `resource`, the FHIR JSON itself), a
    /// verifiable record's `recordTypes`, `issuer`, `subject`, dates and `itemNames`, a dose's
    /// `medicationName` (from `medications`).
    static func jsonObject(_ sample: HKSample, unit: HKUnit?, routes: [HKWorkoutRoute] = [], formatter: HealthFormatter = .local,
                           medications: [HKHealthConceptIdentifier: String] = [:]) -> [String: Any] {
        var object = SampleFormatter.jsonObject(sample, unit: unit, formatter: formatter)
        switch sample {
        case let dose as HKMedicationDoseEvent:
            if let name = medications[dose.medicationConceptIdentifier] {
                object["medicationName"] = name
                object["text"] = MeasurementText.doseText(dose, name: name)
            }
        case is HKWorkout:
            if !routes.isEmpty {
                object["routes"] = routes.map { ["uuid": $0.uuid.uuidString, "locations": $0.count] as [String: Any] }
            }
        case let route as HKWorkoutRoute:
            object["locations"] = route.count
        case let record as HKClinicalRecord:
            object["displayName"] = record.displayName
            if let resource = record.fhirResource {
                var fhir: [String: Any] = ["resourceType": resource.resourceType.rawValue, "identifier": resource.identifier,
                                           "fhirVersion": resource.fhirVersion.stringRepresentation]
                if let url = resource.sourceURL { fhir["sourceURL"] = url.absoluteString }
                if let json = try? JSONSerialization.jsonObject(with: resource.data) { fhir["resource"] = json }
                object["fhirResource"] = fhir
            }
        case let record as HKVerifiableClinicalRecord:
            object["recordTypes"] = record.recordTypes
            object["issuer"] = record.issuerIdentifier
            var subject: [String: Any] = ["fullName": record.subject.fullName]
            if let birth = record.subject.dateOfBirthComponents, let year = birth.year, let month = birth.month, let day = birth.day {
                subject["dateOfBirth"] = ISODateText.string(year: year, month: month, day: day)
            }
            object["subject"] = subject
            object["issuedDate"] = isoDate(record.issuedDate)
            object["relevantDate"] = isoDate(record.relevantDate)
            if let expiration = record.expirationDate { object["expirationDate"] = isoDate(expiration) }
            object["itemNames"] = record.itemNames
            if let sourceType = record.sourceType { object["sourceType"] = sourceType.rawValue }
        default:
            break
        }
        return object
    }

    /// The routes of each workout in `samples`, by workout UUID (one read per workout: a page
    /// holds few workouts).
    static func routes(of samples: [HKSample], in store: HKHealthStore) async throws -> [UUID: [HKWorkoutRoute]] {
        var routes: [UUID: [HKWorkoutRoute]] = [:]
        for case let workout as HKWorkout in samples {
            let descriptor = HKSampleQueryDescriptor(
                predicates: [.sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))],
                sortDescriptors: [SortDescriptor(\.startDate)])
            let found = try await descriptor.result(for: store).compactMap { $0 as? HKWorkoutRoute }
            if !found.isEmpty { routes[workout.uuid] = found }
        }
        return routes
    }
}

/// Writes one JSON array to standard output a page of elements at a time, in the shape
/// `JSONSerialization` gives a whole array (pretty-printed, sorted keys), so a long query never
/// holds more than one page's text.
struct JSONArrayWriter {
    private var count = 0

    /// Writes `objects` as the array's next elements.
    mutating func append(contentsOf objects: [[String: Any]]) throws {
        guard !objects.isEmpty else { return }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
        // The page's own array without its brackets: "[\n" before the elements, "\n]" after them.
        guard let open = data.firstIndex(of: UInt8(ascii: "\n")), let close = data.lastIndex(of: UInt8(ascii: "\n")), open < close else {
            throw ValidationError("JSONSerialization wrote an array in an unexpected shape")
        }
        print(count == 0 ? "[\n" : ",\n", String(decoding: data[data.index(after: open)..<close], as: UTF8.self),
              separator: "", terminator: "")
        count += objects.count
    }

    /// Closes the array.
    func finish() {
        print(count == 0 ? "[]" : "\n]")
    }
}

/// `health store query --type activitySummary`: the Activity rings of each day, read with
/// `HKActivitySummaryQuery` (one summary per day and source: a lifetime is a few thousand).
enum ActivitySummaryListing {
    /// Whether `name` names activity summaries: `activitySummary`, `activity-summaries`,
    /// `activity`, `rings` or `HKActivitySummaryTypeIdentifier`, case-insensitive.
    static func names(_ name: String) -> Bool {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "-", with: "")
        return ["activitysummary", "activitysummaries", "activity", "rings", HKActivitySummaryTypeIdentifier.lowercased()].contains(key)
    }

    /// The summaries of the days from `from`'s through `to`'s (`to` itself excluded when it is a
    /// midnight), local days; every summary when neither is given.
    static func read(_ store: HKHealthStore, from: Date?, to: Date?) async throws -> [HKActivitySummary] {
        var predicate: NSPredicate?
        if from != nil || to != nil {
            let calendar = Calendar.current
            func day(_ date: Date) -> DateComponents { calendar.dateComponents([.year, .month, .day], from: date) }
            let first = from.map(day) ?? DateComponents(year: 1900, month: 1, day: 1)
            var last = DateComponents(year: 9999, month: 12, day: 31)
            if let to { last = day(calendar.startOfDay(for: to) == to ? to.addingTimeInterval(-1) : to) }
            predicate = HKQuery.predicate(forActivitySummariesBetweenStart: first, end: last)
        }
        let query = predicate
        return try await withCheckedThrowingContinuation { continuation in
            store.execute(HKActivitySummaryQuery(predicate: query) { _, summaries, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: summaries ?? []) }
            })
        }
    }

    /// The day of a summary, `2026-11-20`.
    static func dayText(_ summary: HKActivitySummary) -> String {
        let day = summary.dateComponents(for: Calendar.current)
        return ISODateText.string(year: day.year ?? 0, month: day.month ?? 0, day: day.day ?? 0)
    }

    /// A table line: `2026-11-20  Move 420/500 kcal  Exercise 32/30 min  Stand 10/12 h`.
    static func line(_ summary: HKActivitySummary) -> String {
        func ring(_ value: HKQuantity, _ goal: HKQuantity?, _ unit: HKUnit) -> String {
            let shown = formatNumber(value.doubleValue(for: unit).rounded())
            guard let goal else { return shown }
            return "\(shown)/\(formatNumber(goal.doubleValue(for: unit).rounded()))"
        }
        let move = summary.activityMoveMode == .appleMoveTime
            ? "Move \(ring(summary.appleMoveTime, summary.appleMoveTimeGoal, .minute())) min"
            : "Move \(ring(summary.activeEnergyBurned, summary.activeEnergyBurnedGoal, .kilocalorie())) kcal"
        return "\(dayText(summary))  \(move)  Exercise \(ring(summary.appleExerciseTime, summary.exerciseTimeGoal, .minute())) min"
            + "  Stand \(ring(summary.appleStandHours, summary.standHoursGoal, .count())) h" + (summary.isPaused ? "  (rings paused)" : "")
    }

    /// The JSON object of a summary: `date`, `moveMode` (`activeEnergy` or `appleMoveTime`),
    /// `moveKilocalories`, `moveGoalKilocalories`, `moveMinutes`, `moveGoalMinutes`,
    /// `exerciseMinutes`, `exerciseGoalMinutes` and `standHours`, `standGoalHours` (goals
    /// when set), and `paused` (true when the rings were paused that day).
    static func jsonObject(_ summary: HKActivitySummary) -> [String: Any] {
        var object: [String: Any] = [
            "date": dayText(summary),
            "moveMode": summary.activityMoveMode == .appleMoveTime ? "appleMoveTime" : "activeEnergy",
            "moveKilocalories": summary.activeEnergyBurned.doubleValue(for: .kilocalorie()),
            "moveGoalKilocalories": summary.activeEnergyBurnedGoal.doubleValue(for: .kilocalorie()),
            "moveMinutes": summary.appleMoveTime.doubleValue(for: .minute()),
            "moveGoalMinutes": summary.appleMoveTimeGoal.doubleValue(for: .minute()),
            "exerciseMinutes": summary.appleExerciseTime.doubleValue(for: .minute()),
            "standHours": summary.appleStandHours.doubleValue(for: .count()),
        ]
        if let goal = summary.exerciseTimeGoal { object["exerciseGoalMinutes"] = goal.doubleValue(for: .minute()) }
        if let goal = summary.standHoursGoal { object["standGoalHours"] = goal.doubleValue(for: .count()) }
        object["paused"] = summary.isPaused
        return object
    }
}
