import Foundation

// Two HealthKit calls that need what a computer does not have: a paired Apple Watch, and the
// estimates Apple's devices compute. They are here so that code written for HealthKit compiles
// unchanged, and they answer as HealthKit does when the thing is missing.

extension HKHealthStore {
    /// Asks the paired Apple Watch to start its workout app (HealthKit's
    /// `startWatchApp(with:completion:)`). No Apple Watch is paired with a computer, so the
    /// completion always receives `false` and `HKError.errorHealthDataUnavailable`.
    public func startWatchApp(with workoutConfiguration: HKWorkoutConfiguration, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        completion(false, Self.noWatch)
    }

    private static var noWatch: HKError {
        HKError(.errorHealthDataUnavailable, "no Apple Watch is paired with this computer to start a workout on")
    }

    /// Recalibrates the estimates of a sample type from `date` on (HealthKit's
    /// `recalibrateEstimates(sampleType:date:completion:)`, for types whose
    /// `allowsRecalibrationForEstimates` is true). OpenHealthKit computes no estimates, so no
    /// type allows it: the completion receives `false` and `HKError.errorInvalidArgument`.
    public func recalibrateEstimates(sampleType: HKSampleType, date: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        completion(false, Self.noEstimates(sampleType))
    }

    /// The async form of ``recalibrateEstimates(sampleType:date:completion:)``: throws
    /// `HKError.errorInvalidArgument`, as no type's estimates can be recalibrated here.
    public func recalibrateEstimates(sampleType: HKSampleType, date: Date) async throws {
        throw Self.noEstimates(sampleType)
    }

    private static func noEstimates(_ type: HKSampleType) -> HKError {
        HKError(.errorInvalidArgument, "\(type.identifier) does not allow recalibrating estimates (allowsRecalibrationForEstimates is false)")
    }
}
