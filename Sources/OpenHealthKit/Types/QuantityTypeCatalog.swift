import Foundation

/// Storage facts about one quantity type: its canonical unit and how its samples aggregate.
///
/// The canonical unit is the unit values are stored and aggregated in, as HealthKit's
/// `HKTypeIdentifiers.h` gives it. It is a unit string for the unit engine to parse.
struct QuantityTypeDescriptor: Sendable {
    /// The quantity type this entry describes.
    let identifier: HKQuantityTypeIdentifier
    /// The canonical (storage) unit, as an HKUnit string, e.g. `"count/s"`.
    let canonicalUnitString: String
    /// How samples of this type combine in statistics.
    let aggregationStyle: HKQuantityAggregationStyle
}

/// The table of every quantity type this package knows, with canonical unit and aggregation style.
///
/// Source: the trailing comments of `HKTypeIdentifiers.h` in the iOS 18.1 SDK. The header leaves
/// `uvExposure`'s unit blank; HealthKit stores it as a plain count (the UV index), so `count` is used.
enum QuantityTypeCatalog {
    /// Returns the descriptor for a quantity type, or `nil` for an identifier HealthKit does not define.
    static func descriptor(for identifier: HKQuantityTypeIdentifier) -> QuantityTypeDescriptor? {
        byIdentifier[identifier]
    }

    /// Every known quantity type, in header order.
    static let all: [QuantityTypeDescriptor] = [
        // Body Measurements
        QuantityTypeDescriptor(identifier: .appleSleepingWristTemperature, canonicalUnitString: "degC", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .bodyFatPercentage, canonicalUnitString: "%", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .bodyMass, canonicalUnitString: "kg", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .bodyMassIndex, canonicalUnitString: "count", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .electrodermalActivity, canonicalUnitString: "S", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .height, canonicalUnitString: "m", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .leanBodyMass, canonicalUnitString: "kg", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .waistCircumference, canonicalUnitString: "m", aggregationStyle: .discreteArithmetic),
        // Fitness
        QuantityTypeDescriptor(identifier: .activeEnergyBurned, canonicalUnitString: "kcal", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .appleExerciseTime, canonicalUnitString: "min", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .appleMoveTime, canonicalUnitString: "min", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .appleStandTime, canonicalUnitString: "min", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .basalEnergyBurned, canonicalUnitString: "kcal", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .crossCountrySkiingSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .cyclingCadence, canonicalUnitString: "count/min", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .cyclingFunctionalThresholdPower, canonicalUnitString: "W", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .cyclingPower, canonicalUnitString: "W", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .cyclingSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .distanceCrossCountrySkiing, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distanceCycling, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distanceDownhillSnowSports, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distancePaddleSports, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distanceRowing, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distanceSkatingSports, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distanceSwimming, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distanceWalkingRunning, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .distanceWheelchair, canonicalUnitString: "m", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .estimatedWorkoutEffortScore, canonicalUnitString: "appleEffortScore", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .flightsClimbed, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .nikeFuel, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .paddleSportsSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .physicalEffort, canonicalUnitString: "kcal/(kg*hr)", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .pushCount, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .rowingSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .runningPower, canonicalUnitString: "W", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .runningSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .stepCount, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .swimmingStrokeCount, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .underwaterDepth, canonicalUnitString: "m", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .workoutEffortScore, canonicalUnitString: "appleEffortScore", aggregationStyle: .discreteArithmetic),
        // Hearing Health
        QuantityTypeDescriptor(identifier: .environmentalAudioExposure, canonicalUnitString: "dBASPL", aggregationStyle: .discreteEquivalentContinuousLevel),
        QuantityTypeDescriptor(identifier: .environmentalSoundReduction, canonicalUnitString: "dBASPL", aggregationStyle: .discreteEquivalentContinuousLevel),
        QuantityTypeDescriptor(identifier: .headphoneAudioExposure, canonicalUnitString: "dBASPL", aggregationStyle: .discreteEquivalentContinuousLevel),
        // Heart
        QuantityTypeDescriptor(identifier: .atrialFibrillationBurden, canonicalUnitString: "%", aggregationStyle: .discreteTemporallyWeighted),
        QuantityTypeDescriptor(identifier: .heartRate, canonicalUnitString: "count/s", aggregationStyle: .discreteTemporallyWeighted),
        QuantityTypeDescriptor(identifier: .heartRateRecoveryOneMinute, canonicalUnitString: "count/min", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .heartRateVariabilitySDNN, canonicalUnitString: "ms", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .peripheralPerfusionIndex, canonicalUnitString: "%", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .restingHeartRate, canonicalUnitString: "count/min", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .vo2Max, canonicalUnitString: "ml/(kg*min)", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .walkingHeartRateAverage, canonicalUnitString: "count/min", aggregationStyle: .discreteArithmetic),
        // Mobility
        QuantityTypeDescriptor(identifier: .appleWalkingSteadiness, canonicalUnitString: "%", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .runningGroundContactTime, canonicalUnitString: "ms", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .runningStrideLength, canonicalUnitString: "m", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .runningVerticalOscillation, canonicalUnitString: "cm", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .sixMinuteWalkTestDistance, canonicalUnitString: "m", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .stairAscentSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .stairDescentSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .walkingAsymmetryPercentage, canonicalUnitString: "%", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .walkingDoubleSupportPercentage, canonicalUnitString: "%", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .walkingSpeed, canonicalUnitString: "m/s", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .walkingStepLength, canonicalUnitString: "m", aggregationStyle: .discreteArithmetic),
        // Nutrition
        QuantityTypeDescriptor(identifier: .dietaryBiotin, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryCaffeine, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryCalcium, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryCarbohydrates, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryChloride, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryCholesterol, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryChromium, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryCopper, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryEnergyConsumed, canonicalUnitString: "kcal", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryFatMonounsaturated, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryFatPolyunsaturated, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryFatSaturated, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryFatTotal, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryFiber, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryFolate, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryIodine, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryIron, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryMagnesium, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryManganese, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryMolybdenum, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryNiacin, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryPantothenicAcid, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryPhosphorus, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryPotassium, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryProtein, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryRiboflavin, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietarySelenium, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietarySodium, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietarySugar, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryThiamin, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryVitaminA, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryVitaminB12, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryVitaminB6, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryVitaminC, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryVitaminD, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryVitaminE, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryVitaminK, canonicalUnitString: "g", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryWater, canonicalUnitString: "mL", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .dietaryZinc, canonicalUnitString: "g", aggregationStyle: .cumulative),
        // Other
        QuantityTypeDescriptor(identifier: .bloodAlcoholContent, canonicalUnitString: "%", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .bloodPressureDiastolic, canonicalUnitString: "mmHg", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .bloodPressureSystolic, canonicalUnitString: "mmHg", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .insulinDelivery, canonicalUnitString: "IU", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .numberOfAlcoholicBeverages, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .numberOfTimesFallen, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .timeInDaylight, canonicalUnitString: "min", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .uvExposure, canonicalUnitString: "count", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .waterTemperature, canonicalUnitString: "degC", aggregationStyle: .discreteArithmetic),
        // Reproductive Health
        QuantityTypeDescriptor(identifier: .basalBodyTemperature, canonicalUnitString: "degC", aggregationStyle: .discreteArithmetic),
        // Respiratory
        QuantityTypeDescriptor(identifier: .appleSleepingBreathingDisturbances, canonicalUnitString: "count", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .forcedExpiratoryVolume1, canonicalUnitString: "L", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .forcedVitalCapacity, canonicalUnitString: "L", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .inhalerUsage, canonicalUnitString: "count", aggregationStyle: .cumulative),
        QuantityTypeDescriptor(identifier: .oxygenSaturation, canonicalUnitString: "%", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .peakExpiratoryFlowRate, canonicalUnitString: "L/min", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .respiratoryRate, canonicalUnitString: "count/s", aggregationStyle: .discreteArithmetic),
        // Vital Signs
        QuantityTypeDescriptor(identifier: .bloodGlucose, canonicalUnitString: "mg/dL", aggregationStyle: .discreteArithmetic),
        QuantityTypeDescriptor(identifier: .bodyTemperature, canonicalUnitString: "degC", aggregationStyle: .discreteArithmetic),
    ]

    private static let byIdentifier: [HKQuantityTypeIdentifier: QuantityTypeDescriptor] =
        Dictionary(all.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
}
