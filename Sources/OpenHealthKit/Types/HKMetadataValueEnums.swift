import Foundation

// Enumerations whose raw values are stored as NSNumber values under HealthKit metadata keys
// (`HKMetadata.h`, iOS 18.1). Raw values are HealthKit's.

/// Where a body temperature was measured (`HKMetadataKeyBodyTemperatureSensorLocation`).
public enum HKBodyTemperatureSensorLocation: Int, Sendable, Codable, CaseIterable {
    /// Other.
    case other = 0

    /// Armpit.
    case armpit = 1

    /// Body.
    case body = 2

    /// Ear.
    case ear = 3

    /// Finger.
    case finger = 4

    /// Gastrointestinal tract.
    case gastroIntestinal = 5

    /// Mouth.
    case mouth = 6

    /// Rectum.
    case rectum = 7

    /// Toe.
    case toe = 8

    /// Ear drum.
    case earDrum = 9

    /// Temporal artery.
    case temporalArtery = 10

    /// Forehead.
    case forehead = 11
}

/// Where a heart rate was measured (`HKMetadataKeyHeartRateSensorLocation`).
public enum HKHeartRateSensorLocation: Int, Sendable, Codable, CaseIterable {
    /// Other.
    case other = 0

    /// Chest.
    case chest = 1

    /// Wrist.
    case wrist = 2

    /// Finger.
    case finger = 3

    /// Hand.
    case hand = 4

    /// Ear lobe.
    case earLobe = 5

    /// Foot.
    case foot = 6
}

/// The user's motion during a heart rate reading (`HKMetadataKeyHeartRateMotionContext`).
public enum HKHeartRateMotionContext: Int, Sendable, Codable, CaseIterable {
    /// Not set.
    case notSet = 0

    /// The user was still.
    case sedentary = 1

    /// The user was moving or working out.
    case active = 2
}

/// The user's motion when a sample was taken (`HKMetadataKeyUserMotionContext`).
public enum HKUserMotionContext: Int, Sendable, Codable, CaseIterable {
    /// Not set.
    case notSet = 0

    /// The user was still.
    case stationary = 1

    /// The user was moving or working out.
    case active = 2
}

/// The test behind a heart rate recovery value (`HKMetadataKeyHeartRateRecoveryTestType`).
public enum HKHeartRateRecoveryTestType: Int, Sendable, Codable, CaseIterable {
    /// The user exercised to their limit.
    case maxExercise = 1

    /// A submaximal test protocol predicted the value.
    case predictionSubMaxExercise = 2

    /// A non-exercise equation predicted the value.
    case predictionNonExercise = 3
}

/// Weather during a sample or workout (`HKMetadataKeyWeatherCondition`).
public enum HKWeatherCondition: Int, Sendable, Codable, CaseIterable {
    /// No condition.
    case none = 0

    /// Clear.
    case clear = 1

    /// Fair.
    case fair = 2

    /// Partly cloudy.
    case partlyCloudy = 3

    /// Mostly cloudy.
    case mostlyCloudy = 4

    /// Cloudy.
    case cloudy = 5

    /// Foggy.
    case foggy = 6

    /// Haze.
    case haze = 7

    /// Windy.
    case windy = 8

    /// Blustery.
    case blustery = 9

    /// Smoky.
    case smoky = 10

    /// Dust.
    case dust = 11

    /// Snow.
    case snow = 12

    /// Hail.
    case hail = 13

    /// Sleet.
    case sleet = 14

    /// Freezing drizzle.
    case freezingDrizzle = 15

    /// Freezing rain.
    case freezingRain = 16

    /// Mixed rain and hail.
    case mixedRainAndHail = 17

    /// Mixed rain and snow.
    case mixedRainAndSnow = 18

    /// Mixed rain and sleet.
    case mixedRainAndSleet = 19

    /// Mixed snow and sleet.
    case mixedSnowAndSleet = 20

    /// Drizzle.
    case drizzle = 21

    /// Scattered showers.
    case scatteredShowers = 22

    /// Showers.
    case showers = 23

    /// Thunderstorms.
    case thunderstorms = 24

    /// Tropical storm.
    case tropicalStorm = 25

    /// Hurricane.
    case hurricane = 26

    /// Tornado.
    case tornado = 27
}

/// Where a swimming workout took place (`HKMetadataKeySwimmingLocationType`).
public enum HKWorkoutSwimmingLocationType: Int, Sendable, Codable, CaseIterable {
    /// Unknown.
    case unknown = 0

    /// A pool.
    case pool = 1

    /// Open water.
    case openWater = 2
}

/// The predominant stroke of a swimming lap (`HKMetadataKeySwimmingStrokeStyle`).
public enum HKSwimmingStrokeStyle: Int, Sendable, Codable, CaseIterable {
    /// Unknown.
    case unknown = 0

    /// Mixed.
    case mixed = 1

    /// Freestyle.
    case freestyle = 2

    /// Backstroke.
    case backstroke = 3

    /// Breaststroke.
    case breaststroke = 4

    /// Butterfly.
    case butterfly = 5

    /// Kickboard.
    case kickboard = 6
}

/// Why insulin was delivered (`HKMetadataKeyInsulinDeliveryReason`).
public enum HKInsulinDeliveryReason: Int, Sendable, Codable, CaseIterable {
    /// Base metabolic needs, e.g. a continuous pump rate or slow-acting insulin.
    case basal = 1

    /// Episodic needs, such as a meal or a correction.
    case bolus = 2
}

/// When a blood glucose reading was taken relative to a meal (`HKMetadataKeyBloodGlucoseMealTime`).
public enum HKBloodGlucoseMealTime: Int, Sendable, Codable, CaseIterable {
    /// Just before a meal.
    case preprandial = 1

    /// After a meal.
    case postprandial = 2
}

/// The test behind a VO2 max sample (`HKMetadataKeyVO2MaxTestType`).
public enum HKVO2MaxTestType: Int, Sendable, Codable, CaseIterable {
    /// The user exercised to their limit and VO2 max was measured.
    case maxExercise = 1

    /// A submaximal test protocol predicted the value.
    case predictionSubMaxExercise = 2

    /// A non-exercise equation predicted the value.
    case predictionNonExercise = 3
}

/// The ECG algorithm version on Apple Watch (`HKMetadataKeyAppleECGAlgorithmVersion`).
public enum HKAppleECGAlgorithmVersion: Int, Sendable, Codable, CaseIterable {
    /// Version 1.
    case version1 = 1

    /// Version 2.
    case version2 = 2
}

/// Where the device was worn during walking (`HKMetadataKeyDevicePlacementSide`).
public enum HKDevicePlacementSide: Int, Sendable, Codable, CaseIterable {
    /// Unknown.
    case unknown = 0

    /// Left side.
    case left = 1

    /// Right side.
    case right = 2

    /// Middle of the body.
    case central = 3
}

/// Water salinity for underwater samples (`HKMetadataKeyWaterSalinity`).
public enum HKWaterSalinity: Int, Sendable, Codable, CaseIterable {
    /// Fresh water.
    case freshWater = 1

    /// Salt water.
    case saltWater = 2
}

/// The test behind a cycling FTP value (`HKMetadataKeyCyclingFunctionalThresholdPowerTestType`).
public enum HKCyclingFunctionalThresholdPowerTestType: Int, Sendable, Codable, CaseIterable {
    /// Maximal effort sustained for 60 minutes.
    case maxExercise60Minute = 1

    /// Maximal effort sustained for 20 minutes.
    case maxExercise20Minute = 2

    /// Gradually increasing intensity until exhaustion.
    case rampTest = 3

    /// Predicted from the user's cycling workouts.
    case predictionExercise = 4
}

/// How a physical effort sample was estimated (`HKMetadataKeyPhysicalEffortEstimationType`).
public enum HKPhysicalEffortEstimationType: Int, Sendable, Codable, CaseIterable {
    /// From an external standard, such as a stationary bike.
    case activityLookup = 1

    /// From movement signals.
    case deviceSensed = 2
}
