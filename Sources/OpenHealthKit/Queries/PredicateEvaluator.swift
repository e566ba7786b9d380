import Foundation

/// Decides a predicate tree on a decrypted sample, using the 0/1 columns SQL computed for the
/// leaves it decides exactly (in `SQLPredicate.leafColumns` order).
struct PredicateEvaluator {
    let sample: HKSample
    let sqlLeaves: [Bool]
    let metadata: [String: MetadataCodec.Value]
    private var nextLeaf = 0

    init(sample: HKSample, sqlLeaves: [Bool], metadata: [String: MetadataCodec.Value]) {
        self.sample = sample
        self.sqlLeaves = sqlLeaves
        self.metadata = metadata
    }

    mutating func evaluate(_ node: PredicateNode) -> Bool {
        if node.isExactInSQL {
            defer { nextLeaf += 1 }
            return nextLeaf < sqlLeaves.count ? sqlLeaves[nextLeaf] : false
        }
        switch node {
        case .and(let nodes):
            // Evaluate every child so the leaf counter stays aligned with the SQL columns.
            var result = true
            for child in nodes where !evaluate(child) { result = false }
            return result
        case .or(let nodes):
            var result = false
            for child in nodes where evaluate(child) { result = true }
            return result
        case .not(let inner):
            return !evaluate(inner)
        case .devices(let devices):
            guard let device = sample.device else { return false }
            return devices.contains(device)
        case .deviceProperty(let key, let values):
            guard let value = sample.device?.value(forProperty: key) else { return false }
            return values.contains(value)
        case .metadataAllowed(let key, let values):
            guard let value = metadata[key] else { return false }
            return values.contains { Self.compare(value, $0) == .orderedSame }
        case .metadataCompare(let key, let op, let expected):
            guard let value = metadata[key], let result = Self.compare(value, expected) else { return false }
            return op.holds(result)
        case .quantity(let op, let quantity):
            guard let sample = sample as? HKQuantitySample, let order = try? sample.quantity.compare(to: quantity) else { return false }
            return op.holds(order)
        case .categoryValue(let op, let value):
            guard let sample = sample as? HKCategorySample else { return false }
            return op.holds(sample.value, value)
        case .categoryValues(let values):
            guard let sample = sample as? HKCategorySample else { return false }
            return values.contains(sample.value)
        case .workoutDuration(let op, let duration):
            guard let workout = sample as? HKWorkout else { return false }
            return op.holds(workout.duration, duration)
        case .workoutTotal(let kind, let op, let quantity):
            guard let workout = sample as? HKWorkout else { return false }
            let total: HKQuantity?
            switch kind {
            case .energyBurned: total = workout.totalEnergyBurned
            case .distance: total = workout.totalDistance
            case .swimmingStrokeCount: total = workout.totalSwimmingStrokeCount
            case .flightsClimbed: total = workout.totalFlightsClimbed
            }
            guard let total, let order = try? total.compare(to: quantity) else { return false }
            return op.holds(order)
        case .stateOfMind(let match):
            guard let mind = sample as? HKStateOfMind else { return false }
            return match.matches(mind)
        case .electrocardiogram(let match):
            guard let electrocardiogram = sample as? HKElectrocardiogram else { return false }
            return match.matches(electrocardiogram)
        case .medication(let match):
            guard let dose = sample as? HKMedicationDoseEvent else { return false }
            return match.matches(dose)
        case .workoutMatch(let match):
            guard let workout = sample as? HKWorkout else { return false }
            return match.matches(workout)
        case .fhirResource(let type, let identifier):
            guard let resource = (sample as? HKClinicalRecord)?.fhirResource, resource.resourceType.rawValue == type else { return false }
            return identifier.map { $0 == resource.identifier } ?? true
        default:
            return false
        }
    }

    /// Compares two metadata values of the same kind; nil when they cannot be compared.
    static func compare(_ lhs: MetadataCodec.Value, _ rhs: MetadataCodec.Value) -> ComparisonResult? {
        func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        }
        func number(_ value: MetadataCodec.Value) -> Double? {
            switch value {
            case .bool(let v): return v ? 1 : 0
            case .integer(let v): return Double(v)
            case .double(let v): return v
            default: return nil
            }
        }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return order(a, b)
        case (.date(let a), .date(let b)): return order(a, b)
        case (.quantity(let a, let ua), .quantity(let b, let ub)):
            guard let unitA = try? HKUnit.parse(ua), let unitB = try? HKUnit.parse(ub) else { return nil }
            return try? HKQuantity(unit: unitA, doubleValue: a).compare(to: HKQuantity(unit: unitB, doubleValue: b))
        default:
            guard let a = number(lhs), let b = number(rhs) else { return nil }
            return order(a, b)
        }
    }
}
