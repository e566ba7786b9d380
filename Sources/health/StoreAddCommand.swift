import ArgumentParser
import Crypto
import Foundation
import OpenHealthKit

/// `health store add`: saves one sample described by flags.
struct StoreAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Save one sample.",
        discussion: """
            Examples:
              health store add --type stepCount --value 1200 --start 2026-11-20T08:00 --end 2026-11-20T09:00
              health store add --type bloodGlucose --value 5.4 --unit 'mmol<180.15588000005408>/L'
              health store add --type sleepAnalysis --value 4 --start 2026-11-20T01:00 --end 2026-11-20T02:30
              health store add --type workout --activity running --start 2026-11-20T07:00 --end 2026-11-20T07:40 --energy 420 --distance 6500
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The type: stepCount, heartRate, bodyMass, sleepAnalysis, workout… (HealthKit names).")
    var type: String

    @Option(help: "The value: a quantity (in --unit), or a category value's raw number.")
    var value: Double?

    @Option(help: "The unit of --value (default: the type's canonical unit), e.g. count/min, lb, mg/dL.")
    var unit: String?

    @Option(help: "When the sample starts (ISO 8601; default: now).")
    var start: String?

    @Option(help: "When the sample ends (default: the start).")
    var end: String?

    @Option(help: "For workouts: the activity (running, walking, cycling…).")
    var activity: String?

    @Option(help: "For workouts: active energy in kcal.")
    var energy: Double?

    @Option(help: "For workouts: distance in meters.")
    var distance: Double?

    @Option(name: .customLong("metadata"), help: "Metadata as key=value (repeatable); numbers and true/false are typed.")
    var metadata: [String] = []

    @Option(help: ArgumentHelp("Sign the sample with this device key (PEM, mode 0600; see `health store device-keys generate`).",
                               valueName: "KEY.pem"))
    var signWith: String?

    mutating func run() async throws {
        let sampleType = try parseSampleType(type)
        let startDate = try start.map(parseDate) ?? Date()
        let endDate = try end.map(parseDate) ?? startDate
        guard endDate >= startDate else { throw ValidationError("--end is before --start") }
        let metadata = try parseMetadata(self.metadata)
        let sample: HKSample
        switch sampleType {
        case let quantityType as HKQuantityType:
            guard let value else { throw ValidationError("--value is required for \(sampleType.displayName)") }
            let unit = try self.unit.map(parseUnit) ?? quantityType.defaultDisplayUnit
            guard quantityType.is(compatibleWith: unit) else {
                throw ValidationError("unit '\(unit.unitString)' does not fit \(quantityType.displayName)")
            }
            sample = HKQuantitySample(type: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value), start: startDate,
                                      end: endDate, metadata: metadata)
        case let categoryType as HKCategoryType:
            guard let value, value == value.rounded(), let raw = Int(exactly: value) else {
                throw ValidationError("--value must be the category value's whole number for \(sampleType.displayName)")
            }
            sample = HKCategorySample(type: categoryType, value: raw, start: startDate, end: endDate, metadata: metadata)
        case is HKWorkoutType:
            guard let activityName = activity, let activityType = HKWorkoutActivityType(name: activityName) else {
                throw ValidationError("--activity is required for workouts, e.g. running, walking, cycling")
            }
            sample = HKWorkout(activityType: activityType, start: startDate, end: endDate, workoutEvents: nil,
                               totalEnergyBurned: energy.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) },
                               totalDistance: distance.map { HKQuantity(unit: .meter(), doubleValue: $0) }, metadata: metadata)
        default:
            throw ValidationError("\(sampleType.displayName) samples cannot be added from the command line")
        }
        let saved = try signWith.map { path in try Self.sign(sample, with: loadDeviceKey(path)) } ?? sample
        let store = try storeOptions.openStore()
        try await store.save(saved)
        print("Saved \(saved.uuid.uuidString)")
    }

    /// The sample with a device signature in its metadata.
    private static func sign(_ sample: HKSample, with key: P256.Signing.PrivateKey) throws -> HKSample {
        switch sample {
        case let quantity as HKQuantitySample: return try quantity.signed(with: key)
        case let category as HKCategorySample: return try category.signed(with: key)
        default: throw ValidationError("--sign-with signs quantity and category samples only")
        }
    }
}

/// Parses `key=value` metadata; `true`/`false` and numbers are typed.
func parseMetadata(_ pairs: [String]) throws -> [String: Any]? {
    guard !pairs.isEmpty else { return nil }
    var result: [String: Any] = [:]
    for pair in pairs {
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
            throw ValidationError("metadata '\(pair)' must be key=value")
        }
        let key = String(pair[..<equals])
        let text = String(pair[pair.index(after: equals)...])
        if text == "true" || text == "false" {
            result[key] = text == "true"
        } else if let number = Int(text) {
            result[key] = number
        } else if let number = Double(text), number.isFinite {
            result[key] = number
        } else {
            result[key] = text
        }
    }
    return result
}
