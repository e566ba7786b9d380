import Foundation
import OpenHealthKit

/// How the page writes values and dates: quantities in the person's units, category values by
/// name, blood pressure as systolic/diastolic, workouts by activity and length.
struct SampleText: Sendable {
    let units: [HKQuantityType: HKUnit]
    let calendar: Calendar

    func value(of sample: HKSample) -> String {
        switch sample {
        case let quantity as HKQuantitySample:
            let type = quantity.quantityType
            let unit = units[type] ?? type.defaultDisplayUnit
            return "\(Self.number(quantity.quantity.doubleValue(for: unit))) \(unit.unitString)"
        case let category as HKCategorySample:
            if category.categoryType.identifier == HKCategoryTypeIdentifier.sleepAnalysis.rawValue,
               let stage = HKCategoryValueSleepAnalysis(rawValue: category.value) {
                return "\(stage) (\(Self.duration(category.endDate.timeIntervalSince(category.startDate))))"
            }
            return "value \(category.value)"
        case let correlation as HKCorrelation:
            let mmHg = HKUnit.millimeterOfMercury()
            if let systolic = correlation.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample,
               let diastolic = correlation.objects(for: HKQuantityType(.bloodPressureDiastolic)).first as? HKQuantitySample {
                return "\(Self.number(systolic.quantity.doubleValue(for: mmHg)))/\(Self.number(diastolic.quantity.doubleValue(for: mmHg))) mmHg"
            }
            return "\(correlation.objects.count) values"
        case let workout as HKWorkout:
            return "\(workout.workoutActivityType), \(Self.duration(workout.duration))"
        default:
            return ""
        }
    }

    func date(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return "\(Self.pad(parts.year ?? 0, 4))-\(Self.pad(parts.month ?? 0, 2))-\(Self.pad(parts.day ?? 0, 2)) "
            + "\(Self.pad(parts.hour ?? 0, 2)):\(Self.pad(parts.minute ?? 0, 2))"
    }

    /// A day's short label: "11-23".
    func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.month, .day], from: date)
        return "\(Self.pad(parts.month ?? 0, 2))-\(Self.pad(parts.day ?? 0, 2))"
    }

    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: abs(value) >= 100 ? "%.0f" : "%.1f", value)
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let minutes = Int((seconds / 60).rounded())
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
