import Foundation

extension HKQuantityType {
    /// The unit people read this type in, which is not always the storage unit: heart rate is
    /// stored in count/s but shown in count/min (OpenHealthKit API; the CLI uses it, and
    /// `preferredUnits(for:)` starts from it).
    public var defaultDisplayUnit: HKUnit {
        switch identifier {
        case HKQuantityTypeIdentifier.heartRate.rawValue, HKQuantityTypeIdentifier.respiratoryRate.rawValue:
            return HKUnit.count().unitDivided(by: .minute())
        case HKQuantityTypeIdentifier.dietaryWater.rawValue:
            return HKUnit.literUnit(with: .milli)
        default:
            return canonicalUnit
        }
    }
}

extension HKHealthStore {
    /// The units to show quantities in: the metric defaults of ``HKQuantityType/defaultDisplayUnit``,
    /// with pounds, feet and °F for a US locale.
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>) async throws -> [HKQuantityType: HKUnit] {
        let imperial = Locale.current.measurementSystem == .us
        var units: [HKQuantityType: HKUnit] = [:]
        for type in quantityTypes {
            var unit = type.defaultDisplayUnit
            if imperial {
                switch unit {
                case .gramUnit(with: .kilo): unit = .pound()
                case .meter() where type.identifier == HKQuantityTypeIdentifier.height.rawValue: unit = .inch()
                case .meter(): unit = .mile()
                case .degreeCelsius(): unit = .degreeFahrenheit()
                default: break
                }
            }
            units[type] = unit
        }
        return units
    }

    /// Callback form of `preferredUnits(for:)`.
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>,
                               completion: @escaping @Sendable ([HKQuantityType: HKUnit], (any Error)?) -> Void) {
        Task {
            do {
                completion(try await preferredUnits(for: quantityTypes), nil)
            } catch {
                completion([:], error)
            }
        }
    }
}
