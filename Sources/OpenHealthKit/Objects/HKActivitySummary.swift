import CommonSupport
import Foundation
import Synchronization

/// One day's activity rings: move (active energy or move time), exercise and stand, with their
/// goals (HealthKit's `HKActivitySummary`). Read with ``HKActivitySummaryQuery``; the store's
/// owner saves them with ``HKHealthStore/saveActivitySummaries(_:recordedAs:)``.
///
/// Unlike HealthKit's, the values are set when the summary is created and do not change, except
/// ``isPaused``, which HealthKit lets code set too.
public final class HKActivitySummary: NSObject, @unchecked Sendable {
    /// The day, in the calendar the summary was recorded in.
    let day: (year: Int, month: Int, day: Int)
    /// What the move ring measures.
    public let activityMoveMode: HKActivityMoveMode
    /// Active energy burned during the day.
    public let activeEnergyBurned: HKQuantity
    /// The day's active energy goal.
    public let activeEnergyBurnedGoal: HKQuantity
    /// Apple Move Time during the day (for the `appleMoveTime` move mode).
    public let appleMoveTime: HKQuantity
    /// The day's move time goal.
    public let appleMoveTimeGoal: HKQuantity
    /// Apple Exercise Time during the day.
    public let appleExerciseTime: HKQuantity
    /// The day's exercise time goal.
    public let exerciseTimeGoal: HKQuantity?
    /// Hours with at least a minute of standing.
    public let appleStandHours: HKQuantity
    /// The day's stand hours goal.
    public let standHoursGoal: HKQuantity?
    private let paused: Mutex<Bool>

    /// Whether the person paused their activity rings that day (HealthKit's `isPaused`, iOS 18).
    public var isPaused: Bool {
        get { paused.withLock { $0 } }
        set { paused.withLock { $0 = newValue } }
    }

    /// Creates the summary of a day. `dateComponents` needs its year, month and day; quantities
    /// left out are zero (goals of exercise and stand time: none).
    /// - Throws: `errorInvalidArgument` for a day that does not exist or a quantity in a unit
    ///   its ring does not measure.
    public init(dateComponents: DateComponents, activityMoveMode: HKActivityMoveMode = .activeEnergy,
                activeEnergyBurned: HKQuantity? = nil, activeEnergyBurnedGoal: HKQuantity? = nil,
                appleMoveTime: HKQuantity? = nil, appleMoveTimeGoal: HKQuantity? = nil,
                appleExerciseTime: HKQuantity? = nil, exerciseTimeGoal: HKQuantity? = nil,
                appleStandHours: HKQuantity? = nil, standHoursGoal: HKQuantity? = nil, isPaused: Bool = false) throws {
        guard let day = Self.day(of: dateComponents) else {
            throw HKError(.errorInvalidArgument, "an activity summary needs the year, month and day of a real date")
        }
        func checked(_ quantity: HKQuantity?, _ unit: HKUnit, _ name: String) throws -> HKQuantity {
            guard let quantity else { return HKQuantity(unit: unit, doubleValue: 0) }
            guard quantity.is(compatibleWith: unit), (try? quantity.value(in: unit))?.isFinite == true else {
                throw HKError(.errorInvalidArgument, "an activity summary's \(name) must be finite and compatible with \(unit.unitString)")
            }
            return quantity
        }
        self.day = day
        self.activityMoveMode = activityMoveMode
        self.activeEnergyBurned = try checked(activeEnergyBurned, .kilocalorie(), "active energy")
        self.activeEnergyBurnedGoal = try checked(activeEnergyBurnedGoal, .kilocalorie(), "active energy goal")
        self.appleMoveTime = try checked(appleMoveTime, .minute(), "move time")
        self.appleMoveTimeGoal = try checked(appleMoveTimeGoal, .minute(), "move time goal")
        self.appleExerciseTime = try checked(appleExerciseTime, .minute(), "exercise time")
        self.exerciseTimeGoal = try exerciseTimeGoal.map { try checked($0, .minute(), "exercise time goal") }
        self.appleStandHours = try checked(appleStandHours, .count(), "stand hours")
        self.standHoursGoal = try standHoursGoal.map { try checked($0, .count(), "stand hours goal") }
        self.paused = Mutex(isPaused)
        super.init()
    }

    /// The day of the summary in `calendar` (year, month and day).
    public func dateComponents(for calendar: Calendar) -> DateComponents {
        DateComponents(calendar: calendar, year: day.year, month: day.month, day: day.day)
    }

    /// The exercise time goal (HealthKit's older name).
    public var appleExerciseTimeGoal: HKQuantity { exerciseTimeGoal ?? HKQuantity(unit: .minute(), doubleValue: 0) }
    /// The stand hours goal (HealthKit's older name).
    public var appleStandHoursGoal: HKQuantity { standHoursGoal ?? HKQuantity(unit: .count(), doubleValue: 0) }

    /// The civil day of date components, when it exists.
    static func day(of components: DateComponents) -> (year: Int, month: Int, day: Int)? {
        guard let year = components.year, let month = components.month, let day = components.day, (1...12).contains(month),
              day >= 1, day <= CivilCalendar.daysInMonth(month, year: year) else { return nil }
        return (year, month, day)
    }

    /// Midnight UTC of the day: where the store files the summary.
    static func storedStart(of day: (year: Int, month: Int, day: Int)) -> Date {
        Date(timeIntervalSince1970: TimeInterval(CivilCalendar.daysSinceEpoch(year: day.year, month: day.month, day: day.day) * 86_400))
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKActivitySummary else { return false }
        return day == other.day && activityMoveMode == other.activityMoveMode && activeEnergyBurned == other.activeEnergyBurned
            && activeEnergyBurnedGoal == other.activeEnergyBurnedGoal && appleMoveTime == other.appleMoveTime
            && appleMoveTimeGoal == other.appleMoveTimeGoal && appleExerciseTime == other.appleExerciseTime
            && exerciseTimeGoal == other.exerciseTimeGoal && appleStandHours == other.appleStandHours && standHoursGoal == other.standHoursGoal
            && isPaused == other.isPaused
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(day.year)
        hasher.combine(day.month)
        hasher.combine(day.day)
        return hasher.finalize()
    }
}
