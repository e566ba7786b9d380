import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// HealthKit API that older and newer apps call and that an audit of Apple's declarations found
/// missing: each written as Apple declares it, against the public API only, and checked to do
/// what Apple documents.
@Suite("HealthKit declarations: error codes, legacy initializers, activity summary updates", .timeLimit(.minutes(10)))
struct RemainingDeclarationTests {
    private static let revision = HKSourceRevision(source: HKSource(name: "Health", bundleIdentifier: "org.example.health"), version: nil)

    private static func summary(_ day: Int, energy: Double, paused: Bool = false) throws -> HKActivitySummary {
        let summary = try HKActivitySummary(dateComponents: DateComponents(year: 2024, month: 3, day: day),
                                            activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: energy),
                                            activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: 500))
        summary.isPaused = paused
        return summary
    }

    @Test("Every HKError code is a static member of HKError and matches in a catch pattern; unknownError is code 0")
    func errorCodes() {
        let codes: [HKError.Code] = [.unknownError, .noError, .errorHealthDataUnavailable, .errorHealthDataRestricted, .errorInvalidArgument,
                                     .errorAuthorizationDenied, .errorAuthorizationNotDetermined, .errorDatabaseInaccessible, .errorUserCanceled,
                                     .errorAnotherWorkoutSessionStarted, .errorUserExitedWorkoutSession, .errorRequiredAuthorizationDenied,
                                     .errorNoData, .errorWorkoutActivityNotAllowed, .errorDataSizeExceeded,
                                     .errorBackgroundWorkoutSessionNotAllowed, .errorNotPermissibleForGuestUserMode]
        let statics: [HKError.Code] = [HKError.unknownError, HKError.noError, HKError.errorHealthDataUnavailable, HKError.errorHealthDataRestricted,
                                       HKError.errorInvalidArgument, HKError.errorAuthorizationDenied, HKError.errorAuthorizationNotDetermined,
                                       HKError.errorDatabaseInaccessible, HKError.errorUserCanceled, HKError.errorAnotherWorkoutSessionStarted,
                                       HKError.errorUserExitedWorkoutSession, HKError.errorRequiredAuthorizationDenied, HKError.errorNoData,
                                       HKError.errorWorkoutActivityNotAllowed, HKError.errorDataSizeExceeded,
                                       HKError.errorBackgroundWorkoutSessionNotAllowed, HKError.errorNotPermissibleForGuestUserMode]
        #expect(statics == codes)
        #expect(codes.map(\.rawValue) == [0, 0] + Array(1...15))
        func kind(of error: any Error) -> String {
            do { throw error } catch HKError.errorDataSizeExceeded {
                return "too big"
            } catch HKError.errorHealthDataUnavailable {
                return "unavailable"
            } catch {
                return "other"
            }
        }
        #expect(kind(of: HKError(.errorDataSizeExceeded)) == "too big")
        #expect(kind(of: HKError(.errorHealthDataUnavailable)) == "unavailable")
        #expect(kind(of: HKError(.errorNoData)) == "other")
    }

    @Test("HKFHIRVersion(fromVersionString:) parses major.minor.patch and throws for anything else")
    func fhirVersion() throws {
        let version = try HKFHIRVersion(fromVersionString: "4.0.1")
        #expect(version.fhirRelease == .r4 && version.majorVersion == 4 && version.patchVersion == 1)
        #expect(throws: HKError.self) { try HKFHIRVersion(fromVersionString: "4.0") }
    }

    @Test("No sample type restricts its duration: the allowed durations are unbounded")
    func allowedDurations() {
        for type in [HKQuantityType(.heartRate), HKCategoryType(.sleepAnalysis), HKObjectType.workoutType()] as [HKSampleType] {
            #expect(!type.isMaximumDurationRestricted && type.maximumAllowedDuration == .infinity)
            #expect(!type.isMinimumDurationRestricted && type.minimumAllowedDuration == 0)
        }
    }

    @Test("dateOfBirth() (iOS 8) is the start of the day dateOfBirthComponents() names, in the current time zone")
    func dateOfBirth() throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        #expect(throws: HKError.self) { try store.dateOfBirth() }
        try store.setDateOfBirth(DateComponents(year: 1984, month: 2, day: 29))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let date = try store.dateOfBirth()
        let components = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        #expect(components.year == 1984 && components.month == 2 && components.day == 29 && components.hour == 0 && components.minute == 0)
    }

    @Test("HKWorkoutEvent(type:date:) and (type:date:metadata:) (iOS 8 and 10) are events of no duration")
    func workoutEvents() {
        let moment = Date(timeIntervalSince1970: 1_700_000_000)
        let pause = HKWorkoutEvent(type: .pause, date: moment)
        #expect(pause.type == .pause && pause.date == moment && pause.dateInterval.duration == 0 && pause.metadata == nil)
        let lap = HKWorkoutEvent(type: .lap, date: moment, metadata: [HKMetadataKeyLapLength: HKQuantity(unit: .meter(), doubleValue: 25)])
        #expect(lap.dateInterval == DateInterval(start: moment, duration: 0))
        #expect((lap.metadata?[HKMetadataKeyLapLength] as? HKQuantity)?.doubleValue(for: .meter()) == 25)
    }

    @Test("The iOS 8 integer-anchor query returns what was added since its anchor, and an anchor that reads on from there")
    func integerAnchor() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let type = HKQuantityType(.heartRate)
        func sample(_ value: Double) -> HKQuantitySample {
            let start = Date(timeIntervalSince1970: 1_700_000_000 + value)
            return HKQuantitySample(type: type, quantity: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: value), start: start, end: start)
        }
        func run(_ anchor: Int) async throws -> (values: [Double], anchor: Int) {
            try await withCheckedThrowingContinuation { continuation in
                store.execute(HKAnchoredObjectQuery(type: type, predicate: nil, anchor: anchor, limit: HKObjectQueryNoLimit) { _, samples, newAnchor, error in
                    if let error { continuation.resume(throwing: error); return }
                    let values = (samples ?? []).compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .count().unitDivided(by: .minute())) }
                    continuation.resume(returning: (values.sorted(), newAnchor))
                })
            }
        }
        try await store.save([sample(60), sample(61)])
        let first = try await run(Int(HKAnchoredObjectQueryNoAnchor))
        #expect(first.values == [60, 61])
        #expect(first.anchor > Int(HKAnchoredObjectQueryNoAnchor))
        try await store.save(sample(62))
        let second = try await run(first.anchor)
        #expect(second.values == [62])
        let third = try await run(second.anchor)
        #expect(third.values.isEmpty && third.anchor == second.anchor)
    }

    @Test("isPaused is settable, kept by the store, and HKActivitySummaryQuery's updateHandler hands over summaries saved later")
    func activitySummaryUpdates() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.saveActivitySummaries([try Self.summary(1, energy: 400), try Self.summary(2, energy: 120, paused: true)],
                                              recordedAs: Self.revision)
        let results = Inbox<[Double]>()
        let updates = Inbox<[Double]>()
        let paused = Inbox<[Bool]>()
        let query = HKActivitySummaryQuery(predicate: nil) { _, summaries, _ in
            paused.append((summaries ?? []).map(\.isPaused))
            results.append((summaries ?? []).map { $0.activeEnergyBurned.doubleValue(for: .kilocalorie()) })
        }
        query.updateHandler = { _, summaries, _ in
            updates.append((summaries ?? []).map { $0.activeEnergyBurned.doubleValue(for: .kilocalorie()) })
        }
        store.execute(query)
        #expect(await results.wait(for: 1) == [[400, 120]])
        #expect(paused.values == [[false, true]])
        try await store.saveActivitySummaries([try Self.summary(3, energy: 510)], recordedAs: Self.revision)
        #expect(await updates.wait(for: 1) == [[510]])
        // A day saved again comes again.
        try await store.saveActivitySummaries([try Self.summary(1, energy: 450)], recordedAs: Self.revision)
        #expect(await updates.wait(for: 2) == [[510], [450]])
        store.stop(query)
        #expect(results.values.count == 1, "the results handler is called once")

        // Without an update handler the query reads once and ends.
        let once = Inbox<Int>()
        store.execute(HKActivitySummaryQuery(predicate: nil) { _, summaries, _ in once.append(summaries?.count ?? -1) })
        #expect(await once.wait(for: 1) == [3])
    }
}

/// What a computer lacks: a paired watch and device estimates.
@Suite("HealthKit declarations: watch app and estimate recalibration")
struct WatchAndEstimateDeclarationTests {
    @Test("startWatchApp(with:completion:) reports that no watch is paired; recalibrateEstimates refuses every type, in both forms")
    func watchAndEstimates() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let started: (Bool, Int?) = await withCheckedContinuation { continuation in
            store.startWatchApp(with: configuration) { success, error in
                continuation.resume(returning: (success, (error as? HKError)?.code.rawValue))
            }
        }
        #expect(started.0 == false && started.1 == HKError.Code.errorHealthDataUnavailable.rawValue)
        let type = HKQuantityType(.sixMinuteWalkTestDistance)
        #expect(!type.allowsRecalibrationForEstimates)
        let recalibrated: (Bool, Int?) = await withCheckedContinuation { continuation in
            store.recalibrateEstimates(sampleType: type, date: Date()) { success, error in
                continuation.resume(returning: (success, (error as? HKError)?.code.rawValue))
            }
        }
        #expect(recalibrated.0 == false && recalibrated.1 == HKError.Code.errorInvalidArgument.rawValue)
        await #expect(throws: HKError.self) { try await store.recalibrateEstimates(sampleType: type, date: Date()) }
    }
}
