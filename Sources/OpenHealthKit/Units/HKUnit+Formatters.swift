import Foundation

// Bridges between HKUnit and Foundation's formatter units, with HealthKit's Swift names.
extension HKUnit {
    /// Creates the unit matching a mass formatter unit (`g`, `kg`, `oz`, `lb` or `st`).
    ///
    /// - Parameter massFormatterUnit: The formatter unit.
    public convenience init(from massFormatterUnit: MassFormatter.Unit) {
        let unit: HKUnit
        switch massFormatterUnit {
        case .gram: unit = .gram()
        case .kilogram: unit = .gramUnit(with: .kilo)
        case .ounce: unit = .ounce()
        case .pound: unit = .pound()
        case .stone: unit = .stone()
        @unknown default: preconditionFailure("HKUnit(from:): no unit for MassFormatter.Unit \(massFormatterUnit.rawValue)")
        }
        self.init(factorization: unit.factorization)
    }

    /// The mass formatter unit matching `unit`.
    ///
    /// Like HealthKit (which raises an exception), a unit without a formatter equivalent is a
    /// programmer error and stops the program.
    ///
    /// - Parameter unit: One of `g`, `kg`, `oz`, `lb`, `st`.
    /// - Returns: The formatter unit.
    public static func massFormatterUnit(from unit: HKUnit) -> MassFormatter.Unit {
        switch unit {
        case .gram(): .gram
        case .gramUnit(with: .kilo): .kilogram
        case .ounce(): .ounce
        case .pound(): .pound
        case .stone(): .stone
        default: preconditionFailure("No mapping for unit \(unit.unitString) to MassFormatter.Unit")
        }
    }

    /// Creates the unit matching a length formatter unit (`mm`, `cm`, `m`, `km`, `in`, `ft`, `yd` or `mi`).
    ///
    /// - Parameter lengthFormatterUnit: The formatter unit.
    public convenience init(from lengthFormatterUnit: LengthFormatter.Unit) {
        let unit: HKUnit
        switch lengthFormatterUnit {
        case .millimeter: unit = .meterUnit(with: .milli)
        case .centimeter: unit = .meterUnit(with: .centi)
        case .meter: unit = .meter()
        case .kilometer: unit = .meterUnit(with: .kilo)
        case .inch: unit = .inch()
        case .foot: unit = .foot()
        case .yard: unit = .yard()
        case .mile: unit = .mile()
        @unknown default: preconditionFailure("HKUnit(from:): no unit for LengthFormatter.Unit \(lengthFormatterUnit.rawValue)")
        }
        self.init(factorization: unit.factorization)
    }

    /// The length formatter unit matching `unit`.
    ///
    /// A unit without a formatter equivalent is a programmer error and stops the program.
    ///
    /// - Parameter unit: One of `mm`, `cm`, `m`, `km`, `in`, `ft`, `yd`, `mi`.
    /// - Returns: The formatter unit.
    public static func lengthFormatterUnit(from unit: HKUnit) -> LengthFormatter.Unit {
        switch unit {
        case .meterUnit(with: .milli): .millimeter
        case .meterUnit(with: .centi): .centimeter
        case .meter(): .meter
        case .meterUnit(with: .kilo): .kilometer
        case .inch(): .inch
        case .foot(): .foot
        case .yard(): .yard
        case .mile(): .mile
        default: preconditionFailure("No mapping for unit \(unit.unitString) to LengthFormatter.Unit")
        }
    }

    /// Creates the unit matching an energy formatter unit (`J`, `kJ`, `cal` or `kcal`).
    ///
    /// - Parameter energyFormatterUnit: The formatter unit.
    public convenience init(from energyFormatterUnit: EnergyFormatter.Unit) {
        let unit: HKUnit
        switch energyFormatterUnit {
        case .joule: unit = .joule()
        case .kilojoule: unit = .jouleUnit(with: .kilo)
        case .calorie: unit = .smallCalorie()
        case .kilocalorie: unit = .kilocalorie()
        @unknown default: preconditionFailure("HKUnit(from:): no unit for EnergyFormatter.Unit \(energyFormatterUnit.rawValue)")
        }
        self.init(factorization: unit.factorization)
    }

    /// The energy formatter unit matching `unit` (`kcal` and `Cal` both map to `.kilocalorie`).
    ///
    /// A unit without a formatter equivalent is a programmer error and stops the program.
    ///
    /// - Parameter unit: One of `J`, `kJ`, `cal`, `kcal`, `Cal`.
    /// - Returns: The formatter unit.
    public static func energyFormatterUnit(from unit: HKUnit) -> EnergyFormatter.Unit {
        switch unit {
        case .smallCalorie(): .calorie
        case .joule(): .joule
        case .kilocalorie(), .largeCalorie(): .kilocalorie
        case .jouleUnit(with: .kilo): .kilojoule
        default: preconditionFailure("No mapping for unit \(unit.unitString) to EnergyFormatter.Unit")
        }
    }
}
