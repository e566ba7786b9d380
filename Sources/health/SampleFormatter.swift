import Foundation
import HealthPresentation
import OpenHealthKit
import SampleSignatures

/// Turns samples into table lines and JSON for the CLI, in the words of ``HealthFormatter`` (the
/// web page's too): `72 bpm`, `8,412 steps`, `Core sleep 47 min`, `120/80 mmHg`.
enum SampleFormatter {
    /// A sample's value as a person reads it; quantities in `unit` when given.
    static func valueText(_ sample: HKSample, unit: HKUnit?, formatter: HealthFormatter = .local) -> String {
        MeasurementText.text(of: sample) ?? formatter.value(of: sample, unit: unit)
    }

    /// A table row: when (local time, with the zone), the value, the source.
    static func row(_ sample: HKSample, unit: HKUnit?, formatter: HealthFormatter = .local) -> [String] {
        [formatter.span(from: sample.startDate, to: sample.endDate), valueText(sample, unit: unit, formatter: formatter),
         "[\(sample.sourceRevision.source.name)]"]
    }

    /// The samples as table lines with aligned columns; quantities aligned on the right.
    static func table(_ samples: [HKSample], unit: HKUnit?, formatter: HealthFormatter = .local) -> [String] {
        let rows = samples.map { row($0, unit: unit, formatter: formatter) }
        return HealthFormatter.columns(rows, rightAligned: samples.allSatisfy { $0 is HKQuantitySample } ? [1] : [])
    }

    static func jsonObject(_ sample: HKSample, unit: HKUnit?, formatter: HealthFormatter = .local) -> [String: Any] {
        var object: [String: Any] = [
            "uuid": sample.uuid.uuidString,
            "type": sample.sampleType.identifier,
            "start": isoDate(sample.startDate),
            "end": isoDate(sample.endDate),
            "source": sample.sourceRevision.source.bundleIdentifier,
            "text": valueText(sample, unit: unit, formatter: formatter),
        ]
        switch sample {
        case let quantity as HKQuantitySample:
            let shown = unit ?? quantity.quantityType.defaultDisplayUnit
            object["value"] = quantity.quantity.doubleValue(for: shown)
            object["unit"] = shown.unitString
        case let category as HKCategorySample:
            object["value"] = category.value
            if let name = CategoryValues.name(of: category.value, for: category.categoryType) { object["valueName"] = name }
        case let workout as HKWorkout:
            object["activity"] = workout.workoutActivityType.name
            object["duration"] = workout.duration
            if let energy = workout.totalEnergyBurned { object["energyKilocalories"] = energy.doubleValue(for: .kilocalorie()) }
            if let distance = workout.totalDistance { object["distanceMeters"] = distance.doubleValue(for: .meter()) }
        case let correlation as HKCorrelation:
            object["objects"] = correlation.objects.map { jsonObject($0, unit: nil, formatter: formatter) }
        default:
            object.merge(MeasurementText.fields(of: sample)) { _, new in new }
        }
        if let metadata = sample.metadata, !metadata.isEmpty {
            object["metadata"] = metadata.mapValues { value -> Any in
                switch value {
                case let date as Date: return isoDate(date)
                case let quantity as HKQuantity: return quantity.description
                default: return value
                }
            }
        }
        return object
    }

    /// The samples as a JSON array; with `signatures`, each object has a `signature` member
    /// holding the verdict's label.
    static func json(_ samples: [HKSample], unit: HKUnit?, signatures: [SampleSignatureVerdict]? = nil) throws -> String {
        var objects = samples.map { jsonObject($0, unit: unit) }
        if let signatures {
            for (index, verdict) in zip(objects.indices, signatures) { objects[index]["signature"] = verdict.label }
        }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

extension HealthFormatter {
    /// The CLI's formatter for a store: quantities in the units its owner chose (on the web
    /// page's Settings), for the quantity types among `types` (and those a blood pressure's or a
    /// workout's values are shown as).
    static func forStore(_ store: HKHealthStore, types: [HKSampleType]) async throws -> HealthFormatter {
        var quantityTypes = Set(types.compactMap { $0 as? HKQuantityType })
        if types.contains(where: { $0.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue }) {
            quantityTypes.formUnion([HKQuantityType(.bloodPressureSystolic), HKQuantityType(.bloodPressureDiastolic)])
        }
        if types.contains(where: { $0 is HKWorkoutType }) {
            // A workout's energy and distance are shown as active energy and walking distance are.
            quantityTypes.formUnion([HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceWalkingRunning)])
        }
        return HealthFormatter(units: try await store.preferredUnits(for: quantityTypes))
    }
}
