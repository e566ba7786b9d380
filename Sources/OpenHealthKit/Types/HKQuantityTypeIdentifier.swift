import Foundation

/// Identifies a quantity type, such as step count or heart rate.
///
/// Mirrors HealthKit's `HKQuantityTypeIdentifier` string enum: the raw value is the Objective-C constant's string,
/// e.g. `"HKQuantityTypeIdentifierStepCount"`. Canonical units and aggregation styles live in the internal `QuantityTypeCatalog`.
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable, Codable {
    /// The identifier string, exactly as HealthKit spells it.
    public let rawValue: String

    /// Creates an identifier from its raw string. Unknown strings are allowed, as in HealthKit.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates an identifier from its raw string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HKQuantityTypeIdentifier {
    // MARK: Body Measurements

    /// Apple sleeping wrist temperature (degC, discrete arithmetic).
    public static let appleSleepingWristTemperature = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAppleSleepingWristTemperature")

    /// Body fat percentage (%, discrete arithmetic).
    public static let bodyFatPercentage = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBodyFatPercentage")

    /// Body mass (kg, discrete arithmetic).
    public static let bodyMass = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBodyMass")

    /// Body mass index (count, discrete arithmetic).
    public static let bodyMassIndex = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBodyMassIndex")

    /// Electrodermal activity (S, discrete arithmetic).
    public static let electrodermalActivity = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierElectrodermalActivity")

    /// Height (m, discrete arithmetic).
    public static let height = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeight")

    /// Lean body mass (kg, discrete arithmetic).
    public static let leanBodyMass = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierLeanBodyMass")

    /// Waist circumference (m, discrete arithmetic).
    public static let waistCircumference = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWaistCircumference")

    // MARK: Fitness

    /// Active energy burned (kcal, cumulative).
    public static let activeEnergyBurned = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierActiveEnergyBurned")

    /// Apple exercise time (min, cumulative).
    public static let appleExerciseTime = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAppleExerciseTime")

    /// Apple move time (min, cumulative).
    public static let appleMoveTime = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAppleMoveTime")

    /// Apple stand time (min, cumulative).
    public static let appleStandTime = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAppleStandTime")

    /// Basal energy burned (kcal, cumulative).
    public static let basalEnergyBurned = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBasalEnergyBurned")

    /// Cross country skiing speed (m/s, discrete arithmetic).
    public static let crossCountrySkiingSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierCrossCountrySkiingSpeed")

    /// Cycling cadence (count/min, discrete arithmetic).
    public static let cyclingCadence = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierCyclingCadence")

    /// Cycling functional threshold power (W, discrete arithmetic).
    public static let cyclingFunctionalThresholdPower = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierCyclingFunctionalThresholdPower")

    /// Cycling power (W, discrete arithmetic).
    public static let cyclingPower = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierCyclingPower")

    /// Cycling speed (m/s, discrete arithmetic).
    public static let cyclingSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierCyclingSpeed")

    /// Distance cross country skiing (m, cumulative).
    public static let distanceCrossCountrySkiing = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceCrossCountrySkiing")

    /// Distance cycling (m, cumulative).
    public static let distanceCycling = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceCycling")

    /// Distance downhill snow sports (m, cumulative).
    public static let distanceDownhillSnowSports = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceDownhillSnowSports")

    /// Distance paddle sports (m, cumulative).
    public static let distancePaddleSports = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistancePaddleSports")

    /// Distance rowing (m, cumulative).
    public static let distanceRowing = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceRowing")

    /// Distance skating sports (m, cumulative).
    public static let distanceSkatingSports = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceSkatingSports")

    /// Distance swimming (m, cumulative).
    public static let distanceSwimming = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceSwimming")

    /// Distance walking running (m, cumulative).
    public static let distanceWalkingRunning = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceWalkingRunning")

    /// Distance wheelchair (m, cumulative).
    public static let distanceWheelchair = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceWheelchair")

    /// Estimated workout effort score (appleEffortScore, discrete arithmetic).
    public static let estimatedWorkoutEffortScore = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierEstimatedWorkoutEffortScore")

    /// Flights climbed (count, cumulative).
    public static let flightsClimbed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierFlightsClimbed")

    /// Nike fuel (count, cumulative).
    public static let nikeFuel = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierNikeFuel")

    /// Paddle sports speed (m/s, discrete arithmetic).
    public static let paddleSportsSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierPaddleSportsSpeed")

    /// Physical effort (kcal/(kg*hr), discrete arithmetic).
    public static let physicalEffort = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierPhysicalEffort")

    /// Push count (count, cumulative).
    public static let pushCount = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierPushCount")

    /// Rowing speed (m/s, discrete arithmetic).
    public static let rowingSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRowingSpeed")

    /// Running power (W, discrete arithmetic).
    public static let runningPower = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRunningPower")

    /// Running speed (m/s, discrete arithmetic).
    public static let runningSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRunningSpeed")

    /// Step count (count, cumulative).
    public static let stepCount = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierStepCount")

    /// Swimming stroke count (count, cumulative).
    public static let swimmingStrokeCount = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierSwimmingStrokeCount")

    /// Underwater depth (m, discrete arithmetic).
    public static let underwaterDepth = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierUnderwaterDepth")

    /// Workout effort score (appleEffortScore, discrete arithmetic).
    public static let workoutEffortScore = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWorkoutEffortScore")

    // MARK: Hearing Health

    /// Environmental audio exposure (dBASPL, discrete equivalent continuous level).
    public static let environmentalAudioExposure = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierEnvironmentalAudioExposure")

    /// Environmental sound reduction (dBASPL, discrete equivalent continuous level).
    public static let environmentalSoundReduction = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierEnvironmentalSoundReduction")

    /// Headphone audio exposure (dBASPL, discrete equivalent continuous level).
    public static let headphoneAudioExposure = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeadphoneAudioExposure")

    // MARK: Heart

    /// Atrial fibrillation burden (%, discrete temporally weighted).
    public static let atrialFibrillationBurden = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAtrialFibrillationBurden")

    /// Heart rate (count/s, discrete temporally weighted).
    public static let heartRate = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")

    /// Heart rate recovery one minute (count/min, discrete arithmetic).
    public static let heartRateRecoveryOneMinute = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute")

    /// Heart rate variability SDNN (ms, discrete arithmetic).
    public static let heartRateVariabilitySDNN = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN")

    /// Peripheral perfusion index (%, discrete arithmetic).
    public static let peripheralPerfusionIndex = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierPeripheralPerfusionIndex")

    /// Resting heart rate (count/min, discrete arithmetic).
    public static let restingHeartRate = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRestingHeartRate")

    /// VO 2 max (ml/(kg*min), discrete arithmetic).
    public static let vo2Max = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierVO2Max")

    /// Walking heart rate average (count/min, discrete arithmetic).
    public static let walkingHeartRateAverage = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWalkingHeartRateAverage")

    // MARK: Mobility

    /// Apple walking steadiness (%, discrete arithmetic).
    public static let appleWalkingSteadiness = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAppleWalkingSteadiness")

    /// Running ground contact time (ms, discrete arithmetic).
    public static let runningGroundContactTime = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRunningGroundContactTime")

    /// Running stride length (m, discrete arithmetic).
    public static let runningStrideLength = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRunningStrideLength")

    /// Running vertical oscillation (cm, discrete arithmetic).
    public static let runningVerticalOscillation = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRunningVerticalOscillation")

    /// Six minute walk test distance (m, discrete arithmetic).
    public static let sixMinuteWalkTestDistance = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierSixMinuteWalkTestDistance")

    /// Stair ascent speed (m/s, discrete arithmetic).
    public static let stairAscentSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierStairAscentSpeed")

    /// Stair descent speed (m/s, discrete arithmetic).
    public static let stairDescentSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierStairDescentSpeed")

    /// Walking asymmetry percentage (%, discrete arithmetic).
    public static let walkingAsymmetryPercentage = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWalkingAsymmetryPercentage")

    /// Walking double support percentage (%, discrete arithmetic).
    public static let walkingDoubleSupportPercentage = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWalkingDoubleSupportPercentage")

    /// Walking speed (m/s, discrete arithmetic).
    public static let walkingSpeed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWalkingSpeed")

    /// Walking step length (m, discrete arithmetic).
    public static let walkingStepLength = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWalkingStepLength")

    // MARK: Nutrition

    /// Dietary biotin (g, cumulative).
    public static let dietaryBiotin = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryBiotin")

    /// Dietary caffeine (g, cumulative).
    public static let dietaryCaffeine = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryCaffeine")

    /// Dietary calcium (g, cumulative).
    public static let dietaryCalcium = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryCalcium")

    /// Dietary carbohydrates (g, cumulative).
    public static let dietaryCarbohydrates = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryCarbohydrates")

    /// Dietary chloride (g, cumulative).
    public static let dietaryChloride = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryChloride")

    /// Dietary cholesterol (g, cumulative).
    public static let dietaryCholesterol = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryCholesterol")

    /// Dietary chromium (g, cumulative).
    public static let dietaryChromium = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryChromium")

    /// Dietary copper (g, cumulative).
    public static let dietaryCopper = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryCopper")

    /// Dietary energy consumed (kcal, cumulative).
    public static let dietaryEnergyConsumed = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryEnergyConsumed")

    /// Dietary fat monounsaturated (g, cumulative).
    public static let dietaryFatMonounsaturated = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryFatMonounsaturated")

    /// Dietary fat polyunsaturated (g, cumulative).
    public static let dietaryFatPolyunsaturated = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryFatPolyunsaturated")

    /// Dietary fat saturated (g, cumulative).
    public static let dietaryFatSaturated = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryFatSaturated")

    /// Dietary fat total (g, cumulative).
    public static let dietaryFatTotal = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryFatTotal")

    /// Dietary fiber (g, cumulative).
    public static let dietaryFiber = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryFiber")

    /// Dietary folate (g, cumulative).
    public static let dietaryFolate = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryFolate")

    /// Dietary iodine (g, cumulative).
    public static let dietaryIodine = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryIodine")

    /// Dietary iron (g, cumulative).
    public static let dietaryIron = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryIron")

    /// Dietary magnesium (g, cumulative).
    public static let dietaryMagnesium = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryMagnesium")

    /// Dietary manganese (g, cumulative).
    public static let dietaryManganese = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryManganese")

    /// Dietary molybdenum (g, cumulative).
    public static let dietaryMolybdenum = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryMolybdenum")

    /// Dietary niacin (g, cumulative).
    public static let dietaryNiacin = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryNiacin")

    /// Dietary pantothenic acid (g, cumulative).
    public static let dietaryPantothenicAcid = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryPantothenicAcid")

    /// Dietary phosphorus (g, cumulative).
    public static let dietaryPhosphorus = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryPhosphorus")

    /// Dietary potassium (g, cumulative).
    public static let dietaryPotassium = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryPotassium")

    /// Dietary protein (g, cumulative).
    public static let dietaryProtein = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryProtein")

    /// Dietary riboflavin (g, cumulative).
    public static let dietaryRiboflavin = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryRiboflavin")

    /// Dietary selenium (g, cumulative).
    public static let dietarySelenium = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietarySelenium")

    /// Dietary sodium (g, cumulative).
    public static let dietarySodium = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietarySodium")

    /// Dietary sugar (g, cumulative).
    public static let dietarySugar = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietarySugar")

    /// Dietary thiamin (g, cumulative).
    public static let dietaryThiamin = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryThiamin")

    /// Dietary vitamin a (g, cumulative).
    public static let dietaryVitaminA = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryVitaminA")

    /// Dietary vitamin b 12 (g, cumulative).
    public static let dietaryVitaminB12 = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryVitaminB12")

    /// Dietary vitamin b 6 (g, cumulative).
    public static let dietaryVitaminB6 = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryVitaminB6")

    /// Dietary vitamin c (g, cumulative).
    public static let dietaryVitaminC = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryVitaminC")

    /// Dietary vitamin d (g, cumulative).
    public static let dietaryVitaminD = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryVitaminD")

    /// Dietary vitamin e (g, cumulative).
    public static let dietaryVitaminE = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryVitaminE")

    /// Dietary vitamin k (g, cumulative).
    public static let dietaryVitaminK = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryVitaminK")

    /// Dietary water (mL, cumulative).
    public static let dietaryWater = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryWater")

    /// Dietary zinc (g, cumulative).
    public static let dietaryZinc = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierDietaryZinc")

    // MARK: Other

    /// Blood alcohol content (%, discrete arithmetic).
    public static let bloodAlcoholContent = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBloodAlcoholContent")

    /// Blood pressure diastolic (mmHg, discrete arithmetic).
    public static let bloodPressureDiastolic = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBloodPressureDiastolic")

    /// Blood pressure systolic (mmHg, discrete arithmetic).
    public static let bloodPressureSystolic = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBloodPressureSystolic")

    /// Insulin delivery (IU, cumulative).
    public static let insulinDelivery = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierInsulinDelivery")

    /// Number of alcoholic beverages (count, cumulative).
    public static let numberOfAlcoholicBeverages = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierNumberOfAlcoholicBeverages")

    /// Number of times fallen (count, cumulative).
    public static let numberOfTimesFallen = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierNumberOfTimesFallen")

    /// Time in daylight (min, cumulative).
    public static let timeInDaylight = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierTimeInDaylight")

    /// UV exposure (count, discrete arithmetic).
    public static let uvExposure = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierUVExposure")

    /// Water temperature (degC, discrete arithmetic).
    public static let waterTemperature = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierWaterTemperature")

    // MARK: Reproductive Health

    /// Basal body temperature (degC, discrete arithmetic).
    public static let basalBodyTemperature = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBasalBodyTemperature")

    // MARK: Respiratory

    /// Apple sleeping breathing disturbances (count, discrete arithmetic).
    public static let appleSleepingBreathingDisturbances = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances")

    /// Forced expiratory volume 1 (L, discrete arithmetic).
    public static let forcedExpiratoryVolume1 = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierForcedExpiratoryVolume1")

    /// Forced vital capacity (L, discrete arithmetic).
    public static let forcedVitalCapacity = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierForcedVitalCapacity")

    /// Inhaler usage (count, cumulative).
    public static let inhalerUsage = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierInhalerUsage")

    /// Oxygen saturation (%, discrete arithmetic).
    public static let oxygenSaturation = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierOxygenSaturation")

    /// Peak expiratory flow rate (L/min, discrete arithmetic).
    public static let peakExpiratoryFlowRate = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierPeakExpiratoryFlowRate")

    /// Respiratory rate (count/s, discrete arithmetic).
    public static let respiratoryRate = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierRespiratoryRate")

    // MARK: Vital Signs

    /// Blood glucose (mg/dL, discrete arithmetic).
    public static let bloodGlucose = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBloodGlucose")

    /// Body temperature (degC, discrete arithmetic).
    public static let bodyTemperature = HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierBodyTemperature")
}

extension HKQuantityTypeIdentifier {
    /// Every quantity identifier declared above, in header order. Kept in step with the
    /// `static let`s and with `QuantityTypeCatalog` by the tests.
    static let allKnown: [HKQuantityTypeIdentifier] = [
        .appleSleepingWristTemperature,
        .bodyFatPercentage,
        .bodyMass,
        .bodyMassIndex,
        .electrodermalActivity,
        .height,
        .leanBodyMass,
        .waistCircumference,
        .activeEnergyBurned,
        .appleExerciseTime,
        .appleMoveTime,
        .appleStandTime,
        .basalEnergyBurned,
        .crossCountrySkiingSpeed,
        .cyclingCadence,
        .cyclingFunctionalThresholdPower,
        .cyclingPower,
        .cyclingSpeed,
        .distanceCrossCountrySkiing,
        .distanceCycling,
        .distanceDownhillSnowSports,
        .distancePaddleSports,
        .distanceRowing,
        .distanceSkatingSports,
        .distanceSwimming,
        .distanceWalkingRunning,
        .distanceWheelchair,
        .estimatedWorkoutEffortScore,
        .flightsClimbed,
        .nikeFuel,
        .paddleSportsSpeed,
        .physicalEffort,
        .pushCount,
        .rowingSpeed,
        .runningPower,
        .runningSpeed,
        .stepCount,
        .swimmingStrokeCount,
        .underwaterDepth,
        .workoutEffortScore,
        .environmentalAudioExposure,
        .environmentalSoundReduction,
        .headphoneAudioExposure,
        .atrialFibrillationBurden,
        .heartRate,
        .heartRateRecoveryOneMinute,
        .heartRateVariabilitySDNN,
        .peripheralPerfusionIndex,
        .restingHeartRate,
        .vo2Max,
        .walkingHeartRateAverage,
        .appleWalkingSteadiness,
        .runningGroundContactTime,
        .runningStrideLength,
        .runningVerticalOscillation,
        .sixMinuteWalkTestDistance,
        .stairAscentSpeed,
        .stairDescentSpeed,
        .walkingAsymmetryPercentage,
        .walkingDoubleSupportPercentage,
        .walkingSpeed,
        .walkingStepLength,
        .dietaryBiotin,
        .dietaryCaffeine,
        .dietaryCalcium,
        .dietaryCarbohydrates,
        .dietaryChloride,
        .dietaryCholesterol,
        .dietaryChromium,
        .dietaryCopper,
        .dietaryEnergyConsumed,
        .dietaryFatMonounsaturated,
        .dietaryFatPolyunsaturated,
        .dietaryFatSaturated,
        .dietaryFatTotal,
        .dietaryFiber,
        .dietaryFolate,
        .dietaryIodine,
        .dietaryIron,
        .dietaryMagnesium,
        .dietaryManganese,
        .dietaryMolybdenum,
        .dietaryNiacin,
        .dietaryPantothenicAcid,
        .dietaryPhosphorus,
        .dietaryPotassium,
        .dietaryProtein,
        .dietaryRiboflavin,
        .dietarySelenium,
        .dietarySodium,
        .dietarySugar,
        .dietaryThiamin,
        .dietaryVitaminA,
        .dietaryVitaminB12,
        .dietaryVitaminB6,
        .dietaryVitaminC,
        .dietaryVitaminD,
        .dietaryVitaminE,
        .dietaryVitaminK,
        .dietaryWater,
        .dietaryZinc,
        .bloodAlcoholContent,
        .bloodPressureDiastolic,
        .bloodPressureSystolic,
        .insulinDelivery,
        .numberOfAlcoholicBeverages,
        .numberOfTimesFallen,
        .timeInDaylight,
        .uvExposure,
        .waterTemperature,
        .basalBodyTemperature,
        .appleSleepingBreathingDisturbances,
        .forcedExpiratoryVolume1,
        .forcedVitalCapacity,
        .inhalerUsage,
        .oxygenSaturation,
        .peakExpiratoryFlowRate,
        .respiratoryRate,
        .bloodGlucose,
        .bodyTemperature,
    ]
}
