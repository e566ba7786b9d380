import Foundation
import OpenHealthKit
import SampleSignatures

/// Turns samples into table lines and JSON for the CLI.
enum SampleFormatter {
    static func valueText(_ sample: HKSample, unit: HKUnit?) -> String {
        switch sample {
        case let quantity as HKQuantitySample:
            let shown = unit ?? quantity.quantityType.defaultDisplayUnit
            return "\(formatNumber(quantity.quantity.doubleValue(for: shown))) \(shown.unitString)"
        case let category as HKCategorySample:
            return "value \(category.value)"
        case let workout as HKWorkout:
            var parts = [workout.workoutActivityType.name, "\(formatNumber((workout.duration / 60).rounded())) min"]
            if let energy = workout.totalEnergyBurned { parts.append("\(formatNumber(energy.doubleValue(for: .kilocalorie()))) kcal") }
            if let distance = workout.totalDistance { parts.append("\(formatNumber(distance.doubleValue(for: .meter()))) m") }
            return parts.joined(separator: ", ")
        case let correlation as HKCorrelation:
            return correlation.objects.sorted { $0.sampleType.identifier > $1.sampleType.identifier }
                .map { "\($0.sampleType.displayName): \(valueText($0, unit: nil))" }.joined(separator: "; ")
        default:
            return ""
        }
    }

    static func table(_ samples: [HKSample], unit: HKUnit?) -> [String] {
        samples.map { sample in
            let span = sample.startDate == sample.endDate ? formatDate(sample.startDate)
                : "\(formatDate(sample.startDate)) – \(formatDate(sample.endDate))"
            return "\(span)  \(valueText(sample, unit: unit))  [\(sample.sourceRevision.source.name)]"
        }
    }

    static func jsonObject(_ sample: HKSample, unit: HKUnit?) -> [String: Any] {
        var object: [String: Any] = [
            "uuid": sample.uuid.uuidString,
            "type": sample.sampleType.identifier,
            "start": isoDate(sample.startDate),
            "end": isoDate(sample.endDate),
            "source": sample.sourceRevision.source.bundleIdentifier,
        ]
        switch sample {
        case let quantity as HKQuantitySample:
            let shown = unit ?? quantity.quantityType.defaultDisplayUnit
            object["value"] = quantity.quantity.doubleValue(for: shown)
            object["unit"] = shown.unitString
        case let category as HKCategorySample:
            object["value"] = category.value
        case let workout as HKWorkout:
            object["activity"] = workout.workoutActivityType.name
            object["duration"] = workout.duration
            if let energy = workout.totalEnergyBurned { object["energyKilocalories"] = energy.doubleValue(for: .kilocalorie()) }
            if let distance = workout.totalDistance { object["distanceMeters"] = distance.doubleValue(for: .meter()) }
        case let correlation as HKCorrelation:
            object["objects"] = correlation.objects.map { jsonObject($0, unit: nil) }
        default:
            break
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
