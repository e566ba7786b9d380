import Foundation

/// The kind of activity a workout records.
///
/// Raw values are HealthKit's (`HKWorkoutActivityType.h`); 81 is unused there and here.
/// `name` and `init?(name:)` are additions for display and for command-line parsing.
public enum HKWorkoutActivityType: UInt, Sendable, Codable, CaseIterable {
    /// American Football.
    case americanFootball = 1
    /// Archery.
    case archery = 2
    /// Australian Football.
    case australianFootball = 3
    /// Badminton.
    case badminton = 4
    /// Baseball.
    case baseball = 5
    /// Basketball.
    case basketball = 6
    /// Bowling.
    case bowling = 7
    /// Boxing.
    case boxing = 8
    /// Climbing.
    case climbing = 9
    /// Cricket.
    case cricket = 10
    /// Cross Training.
    case crossTraining = 11
    /// Curling.
    case curling = 12
    /// Cycling.
    case cycling = 13
    /// Dance. Deprecated in HealthKit; still readable in older data.
    @available(*, deprecated, message: "Use socialDance or cardioDance")
    case dance = 14
    /// Dance Inspired Training. Deprecated in HealthKit; still readable in older data.
    @available(*, deprecated, message: "Use socialDance, cardioDance, barre or pilates")
    case danceInspiredTraining = 15
    /// Elliptical.
    case elliptical = 16
    /// Equestrian Sports.
    case equestrianSports = 17
    /// Fencing.
    case fencing = 18
    /// Fishing.
    case fishing = 19
    /// Functional Strength Training.
    case functionalStrengthTraining = 20
    /// Golf.
    case golf = 21
    /// Gymnastics.
    case gymnastics = 22
    /// Handball.
    case handball = 23
    /// Hiking.
    case hiking = 24
    /// Hockey.
    case hockey = 25
    /// Hunting.
    case hunting = 26
    /// Lacrosse.
    case lacrosse = 27
    /// Martial Arts.
    case martialArts = 28
    /// Mind and Body.
    case mindAndBody = 29
    /// Mixed Metabolic Cardio Training. Deprecated in HealthKit; still readable in older data.
    @available(*, deprecated, message: "Use mixedCardio or highIntensityIntervalTraining")
    case mixedMetabolicCardioTraining = 30
    /// Paddle Sports.
    case paddleSports = 31
    /// Play.
    case play = 32
    /// Preparation and Recovery.
    case preparationAndRecovery = 33
    /// Racquetball.
    case racquetball = 34
    /// Rowing.
    case rowing = 35
    /// Rugby.
    case rugby = 36
    /// Running.
    case running = 37
    /// Sailing.
    case sailing = 38
    /// Skating Sports.
    case skatingSports = 39
    /// Snow Sports.
    case snowSports = 40
    /// Soccer.
    case soccer = 41
    /// Softball.
    case softball = 42
    /// Squash.
    case squash = 43
    /// Stair Climbing.
    case stairClimbing = 44
    /// Surfing Sports.
    case surfingSports = 45
    /// Swimming.
    case swimming = 46
    /// Table Tennis.
    case tableTennis = 47
    /// Tennis.
    case tennis = 48
    /// Track and Field.
    case trackAndField = 49
    /// Traditional Strength Training.
    case traditionalStrengthTraining = 50
    /// Volleyball.
    case volleyball = 51
    /// Walking.
    case walking = 52
    /// Water Fitness.
    case waterFitness = 53
    /// Water Polo.
    case waterPolo = 54
    /// Water Sports.
    case waterSports = 55
    /// Wrestling.
    case wrestling = 56
    /// Yoga.
    case yoga = 57
    /// Barre.
    case barre = 58
    /// Core Training.
    case coreTraining = 59
    /// Cross Country Skiing.
    case crossCountrySkiing = 60
    /// Downhill Skiing.
    case downhillSkiing = 61
    /// Flexibility.
    case flexibility = 62
    /// High Intensity Interval Training.
    case highIntensityIntervalTraining = 63
    /// Jump Rope.
    case jumpRope = 64
    /// Kickboxing.
    case kickboxing = 65
    /// Pilates.
    case pilates = 66
    /// Snowboarding.
    case snowboarding = 67
    /// Stairs.
    case stairs = 68
    /// Step Training.
    case stepTraining = 69
    /// Wheelchair Walk Pace.
    case wheelchairWalkPace = 70
    /// Wheelchair Run Pace.
    case wheelchairRunPace = 71
    /// Tai Chi.
    case taiChi = 72
    /// Mixed Cardio.
    case mixedCardio = 73
    /// Hand Cycling.
    case handCycling = 74
    /// Disc Sports.
    case discSports = 75
    /// Fitness Gaming.
    case fitnessGaming = 76
    /// Cardio Dance.
    case cardioDance = 77
    /// Social Dance.
    case socialDance = 78
    /// Pickleball.
    case pickleball = 79
    /// Cooldown.
    case cooldown = 80
    /// Swim Bike Run.
    case swimBikeRun = 82
    /// Transition.
    case transition = 83
    /// Underwater Diving.
    case underwaterDiving = 84
    /// Other.
    case other = 3000

    /// Every case, including the deprecated ones, in raw-value order.
    public static let allCases: [HKWorkoutActivityType] = names.keys.sorted().compactMap { HKWorkoutActivityType(rawValue: $0) }

    /// A display name, e.g. `"Running"` or `"High Intensity Interval Training"`.
    public var name: String {
        Self.names[rawValue]?.display ?? "Unknown"
    }

    /// The Swift case name, e.g. `"running"` or `"highIntensityIntervalTraining"`.
    public var caseName: String {
        Self.names[rawValue]?.caseName ?? "unknown"
    }

    /// Parses an activity type from its case name or display name, ignoring case, spaces, `-` and `_`.
    ///
    /// Accepts `"running"`, `"Running"`, `"traditional strength training"`, `"high-intensity-interval-training"`
    /// and the export form `"HKWorkoutActivityTypeRunning"`. Returns `nil` for anything else.
    public init?(name: String) {
        var key = Self.normalized(name)
        let prefix = "hkworkoutactivitytype"
        if key.hasPrefix(prefix), key.count > prefix.count {
            key.removeFirst(prefix.count)
        }
        guard let raw = Self.rawValueByNormalizedName[key] else {
            return nil
        }
        self.init(rawValue: raw)
    }

    private static func normalized(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// Names keyed by raw value, so that no code here has to name a deprecated case.
    private static let names: [UInt: (caseName: String, display: String)] = [
        1: ("americanFootball", "American Football"),
        2: ("archery", "Archery"),
        3: ("australianFootball", "Australian Football"),
        4: ("badminton", "Badminton"),
        5: ("baseball", "Baseball"),
        6: ("basketball", "Basketball"),
        7: ("bowling", "Bowling"),
        8: ("boxing", "Boxing"),
        9: ("climbing", "Climbing"),
        10: ("cricket", "Cricket"),
        11: ("crossTraining", "Cross Training"),
        12: ("curling", "Curling"),
        13: ("cycling", "Cycling"),
        14: ("dance", "Dance"),
        15: ("danceInspiredTraining", "Dance Inspired Training"),
        16: ("elliptical", "Elliptical"),
        17: ("equestrianSports", "Equestrian Sports"),
        18: ("fencing", "Fencing"),
        19: ("fishing", "Fishing"),
        20: ("functionalStrengthTraining", "Functional Strength Training"),
        21: ("golf", "Golf"),
        22: ("gymnastics", "Gymnastics"),
        23: ("handball", "Handball"),
        24: ("hiking", "Hiking"),
        25: ("hockey", "Hockey"),
        26: ("hunting", "Hunting"),
        27: ("lacrosse", "Lacrosse"),
        28: ("martialArts", "Martial Arts"),
        29: ("mindAndBody", "Mind and Body"),
        30: ("mixedMetabolicCardioTraining", "Mixed Metabolic Cardio Training"),
        31: ("paddleSports", "Paddle Sports"),
        32: ("play", "Play"),
        33: ("preparationAndRecovery", "Preparation and Recovery"),
        34: ("racquetball", "Racquetball"),
        35: ("rowing", "Rowing"),
        36: ("rugby", "Rugby"),
        37: ("running", "Running"),
        38: ("sailing", "Sailing"),
        39: ("skatingSports", "Skating Sports"),
        40: ("snowSports", "Snow Sports"),
        41: ("soccer", "Soccer"),
        42: ("softball", "Softball"),
        43: ("squash", "Squash"),
        44: ("stairClimbing", "Stair Climbing"),
        45: ("surfingSports", "Surfing Sports"),
        46: ("swimming", "Swimming"),
        47: ("tableTennis", "Table Tennis"),
        48: ("tennis", "Tennis"),
        49: ("trackAndField", "Track and Field"),
        50: ("traditionalStrengthTraining", "Traditional Strength Training"),
        51: ("volleyball", "Volleyball"),
        52: ("walking", "Walking"),
        53: ("waterFitness", "Water Fitness"),
        54: ("waterPolo", "Water Polo"),
        55: ("waterSports", "Water Sports"),
        56: ("wrestling", "Wrestling"),
        57: ("yoga", "Yoga"),
        58: ("barre", "Barre"),
        59: ("coreTraining", "Core Training"),
        60: ("crossCountrySkiing", "Cross Country Skiing"),
        61: ("downhillSkiing", "Downhill Skiing"),
        62: ("flexibility", "Flexibility"),
        63: ("highIntensityIntervalTraining", "High Intensity Interval Training"),
        64: ("jumpRope", "Jump Rope"),
        65: ("kickboxing", "Kickboxing"),
        66: ("pilates", "Pilates"),
        67: ("snowboarding", "Snowboarding"),
        68: ("stairs", "Stairs"),
        69: ("stepTraining", "Step Training"),
        70: ("wheelchairWalkPace", "Wheelchair Walk Pace"),
        71: ("wheelchairRunPace", "Wheelchair Run Pace"),
        72: ("taiChi", "Tai Chi"),
        73: ("mixedCardio", "Mixed Cardio"),
        74: ("handCycling", "Hand Cycling"),
        75: ("discSports", "Disc Sports"),
        76: ("fitnessGaming", "Fitness Gaming"),
        77: ("cardioDance", "Cardio Dance"),
        78: ("socialDance", "Social Dance"),
        79: ("pickleball", "Pickleball"),
        80: ("cooldown", "Cooldown"),
        82: ("swimBikeRun", "Swim Bike Run"),
        83: ("transition", "Transition"),
        84: ("underwaterDiving", "Underwater Diving"),
        3000: ("other", "Other"),
    ]

    private static let rawValueByNormalizedName: [String: UInt] = {
        var result: [String: UInt] = [:]
        for (raw, entry) in names {
            result[normalized(entry.caseName)] = raw
            result[normalized(entry.display)] = raw
        }
        return result
    }()
}
