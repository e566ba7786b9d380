import HealthPresentation
import OpenHealthKit

/// The unit choices of the Settings page: each applies to a group of quantity types and is
/// stored, per type, as the store's preferred unit (``HKHealthStore/setPreferredUnit(_:for:)``);
/// values are shown in it by `HealthFormatter`, the CLI's formatter too.
struct SettingsUnits: Sendable {
    /// One choice in a group.
    struct Option: Sendable {
        let id: String
        let label: String
        let unit: HKUnit
    }

    /// The form field's name.
    let id: String
    /// What the choice is about.
    let label: String
    /// The types it applies to.
    let types: [HKQuantityType]
    /// The units to choose from.
    let options: [Option]

    /// The form value that goes back to the default unit.
    static let defaultOption = "default"

    static let all: [SettingsUnits] = [
        SettingsUnits(id: "weight", label: "Body weight", types: [HKQuantityType(.bodyMass), HKQuantityType(.leanBodyMass)],
                      options: [Option(id: "kg", label: "kilograms (kg)", unit: .gramUnit(with: .kilo)), Option(id: "lb", label: "pounds (lb)", unit: .pound()),
                                Option(id: "st", label: "stones (st)", unit: HKUnit(from: "st"))]),
        SettingsUnits(id: "glucose", label: "Blood glucose", types: [HKQuantityType(.bloodGlucose)],
                      options: [Option(id: "mmol", label: "mmol/L",
                                       unit: HKUnit.moleUnit(with: .milli,
                                                             molarMass: HealthUnits.molarMass(for: HKQuantityType(.bloodGlucose))
                                                                 ?? HKUnitMolarMassBloodGlucose)
                                        .unitDivided(by: .liter())),
                                Option(id: "mg", label: "mg/dL", unit: HKUnit.gramUnit(with: .milli).unitDivided(by: .literUnit(with: .deci)))]),
        SettingsUnits(id: "temperature", label: "Body temperature", types: [HKQuantityType(.bodyTemperature), HKQuantityType(.basalBodyTemperature)],
                      options: [Option(id: "c", label: "degrees Celsius (°C)", unit: .degreeCelsius()),
                                Option(id: "f", label: "degrees Fahrenheit (°F)", unit: .degreeFahrenheit())]),
        SettingsUnits(id: "distance", label: "Distance",
                      types: [HKQuantityType(.distanceWalkingRunning), HKQuantityType(.distanceCycling), HKQuantityType(.distanceSwimming)],
                      options: [Option(id: "km", label: "kilometres (km)", unit: .meterUnit(with: .kilo)),
                                Option(id: "mi", label: "miles (mi)", unit: .mile())]),
        SettingsUnits(id: "height", label: "Height", types: [HKQuantityType(.height)],
                      options: [Option(id: "cm", label: "centimetres (cm)", unit: .meterUnit(with: .centi)),
                                Option(id: "in", label: "inches (in)", unit: .inch())]),
        SettingsUnits(id: "energy", label: "Energy",
                      types: [HKQuantityType(.activeEnergyBurned), HKQuantityType(.basalEnergyBurned), HKQuantityType(.dietaryEnergyConsumed)],
                      options: [Option(id: "kcal", label: "kilocalories (kcal)", unit: .kilocalorie()),
                                Option(id: "kj", label: "kilojoules (kJ)", unit: .jouleUnit(with: .kilo))]),
    ]

    /// The unit a form value chooses: nil for the default; throws when the value is not one of the options.
    func unit(forFormValue value: String) throws(SettingsUnitsError) -> HKUnit? {
        if value == Self.defaultOption { return nil }
        guard let option = options.first(where: { $0.id == value }) else { throw SettingsUnitsError(group: label) }
        return option.unit
    }
}

/// A Settings form value that is not one of the choices.
struct SettingsUnitsError: Error, Sendable {
    let group: String
}
