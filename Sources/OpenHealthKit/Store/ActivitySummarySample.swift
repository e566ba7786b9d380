import Foundation

/// An activity summary as the store keeps it: a row of ``ActivitySummaryStorageType`` spanning
/// its day (midnight to midnight UTC of the civil date), its values sealed like any sample's.
final class ActivitySummarySample: HKSample, @unchecked Sendable {
    let summary: HKActivitySummary

    init(_ summary: HKActivitySummary, uuid: UUID = UUID(), sourceRevision: HKSourceRevision? = nil) {
        self.summary = summary
        let start = HKActivitySummary.storedStart(of: summary.day)
        super.init(sampleType: ActivitySummaryStorageType(), startDate: start, endDate: start.addingTimeInterval(86_400), uuid: uuid,
                   sourceRevision: sourceRevision, device: nil, metadata: nil)
    }
}

/// The sealed values of an activity summary: quantities in the units HealthKit reports them in.
struct ActivitySummaryDetails: Codable, Sendable {
    var year: Int
    var month: Int
    var day: Int
    var moveMode: Int
    var activeEnergyKilocalories: Double
    var activeEnergyGoalKilocalories: Double
    var moveMinutes: Double
    var moveGoalMinutes: Double
    var exerciseMinutes: Double
    var exerciseGoalMinutes: Double?
    var standHours: Double
    var standHoursGoal: Double?
    /// Whether the rings were paused that day; absent in summaries stored before it was kept.
    var paused: Bool?

    init(_ summary: HKActivitySummary) throws {
        func value(_ quantity: HKQuantity, _ unit: HKUnit) throws -> Double {
            guard let value = try? quantity.value(in: unit), value.isFinite else {
                throw HKError(.errorInvalidArgument, "an activity summary's quantity is not finite in \(unit.unitString)")
            }
            return value
        }
        (year, month, day) = summary.day
        moveMode = summary.activityMoveMode.rawValue
        activeEnergyKilocalories = try value(summary.activeEnergyBurned, .kilocalorie())
        activeEnergyGoalKilocalories = try value(summary.activeEnergyBurnedGoal, .kilocalorie())
        moveMinutes = try value(summary.appleMoveTime, .minute())
        moveGoalMinutes = try value(summary.appleMoveTimeGoal, .minute())
        exerciseMinutes = try value(summary.appleExerciseTime, .minute())
        exerciseGoalMinutes = try summary.exerciseTimeGoal.map { try value($0, .minute()) }
        standHours = try value(summary.appleStandHours, .count())
        standHoursGoal = try summary.standHoursGoal.map { try value($0, .count()) }
        paused = summary.isPaused ? true : nil
    }

    /// The text a summary is recognised as unchanged by (hashed into its content version): the
    /// fields as `String(describing:)` writes them without `paused`, which is what summaries
    /// stored before `paused` was kept were recognised by, and ` paused` after it for a paused
    /// day. So saving an unchanged summary again still stores nothing.
    var contentText: String {
        var unpaused = self
        unpaused.paused = nil
        var text = String(describing: unpaused)
        let absent = ", paused: nil)"
        if text.hasSuffix(absent) { text = String(text.dropLast(absent.count)) + ")" }
        return paused == true ? text + " paused" : text
    }

    func makeSummary() throws -> HKActivitySummary {
        try HKActivitySummary(
            dateComponents: DateComponents(year: year, month: month, day: day),
            activityMoveMode: HKActivityMoveMode(rawValue: moveMode) ?? .activeEnergy,
            activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: activeEnergyKilocalories),
            activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: activeEnergyGoalKilocalories),
            appleMoveTime: HKQuantity(unit: .minute(), doubleValue: moveMinutes),
            appleMoveTimeGoal: HKQuantity(unit: .minute(), doubleValue: moveGoalMinutes),
            appleExerciseTime: HKQuantity(unit: .minute(), doubleValue: exerciseMinutes),
            exerciseTimeGoal: exerciseGoalMinutes.map { HKQuantity(unit: .minute(), doubleValue: $0) },
            appleStandHours: HKQuantity(unit: .count(), doubleValue: standHours),
            standHoursGoal: standHoursGoal.map { HKQuantity(unit: .count(), doubleValue: $0) },
            isPaused: paused ?? false)
    }
}
