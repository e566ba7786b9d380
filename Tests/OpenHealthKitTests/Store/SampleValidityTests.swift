import Foundation
import Testing
@testable import OpenHealthKit

/// Values that make no physical sense are refused with `errorInvalidArgument`: temperatures
/// below absolute zero, dates the statistics engine cannot place, a date of birth in the future (issue 36).
@Suite("Sample validity")
struct SampleValidityTests {
    /// The message of the `errorInvalidArgument` saving `object` throws, or nil when it is saved.
    static func refusal(_ object: HKObject, in store: HKHealthStore) async -> String? {
        do {
            try await store.save(object)
            return nil
        } catch let error as HKError where error.code == .errorInvalidArgument {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("A body, basal or water temperature below absolute zero is refused; 0 K, a fever and sea water below 0 °C are saved")
    func temperaturesBelowAbsoluteZero() async throws {
        let store = TestStores.memory()
        func sample(_ identifier: HKQuantityTypeIdentifier, _ value: Double, _ unit: HKUnit) -> HKQuantitySample {
            HKQuantitySample(type: HKQuantityType(identifier), quantity: HKQuantity(unit: unit, doubleValue: value),
                             start: Samples.reference, end: Samples.reference)
        }
        for (identifier, value, unit) in [(HKQuantityTypeIdentifier.bodyTemperature, -300, HKUnit.degreeCelsius()),
                                          (.basalBodyTemperature, -460, .degreeFahrenheit()), (.waterTemperature, -0.5, .kelvin()),
                                          (.bodyTemperature, -273.16, .degreeCelsius())] {
            let message = await Self.refusal(sample(identifier, value, unit), in: store)
            #expect(message?.contains("below absolute zero") == true, "\(identifier.rawValue) \(value): \(message ?? "saved")")
        }
        for (identifier, value, unit) in [(HKQuantityTypeIdentifier.bodyTemperature, 39.5, HKUnit.degreeCelsius()),
                                          (.basalBodyTemperature, 97.7, .degreeFahrenheit()), (.waterTemperature, 0, .kelvin()),
                                          (.appleSleepingWristTemperature, -1.5, .degreeCelsius()), (.waterTemperature, -2, .degreeCelsius()),
                                          (.bodyTemperature, -5, .degreeFahrenheit())] {
            #expect(await Self.refusal(sample(identifier, value, unit), in: store) == nil, "\(identifier.rawValue) \(value)")
        }
    }

    @Test("A sample dated year 99999, or beyond Date.distantFuture, is refused; distantPast and distantFuture are saved")
    func datesBeyondTheStoreAreRefused() async throws {
        let store = TestStores.memory()
        var components = DateComponents(year: 99_999, month: 6, day: 1)
        components.timeZone = TimeZone(identifier: "UTC")
        let year99999 = try #require(Calendar(identifier: .gregorian).date(from: components))
        let steps = HKQuantityType(.stepCount)
        func sample(_ start: Date, _ end: Date) -> HKQuantitySample {
            HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 10), start: start, end: end)
        }
        for (start, end) in [(year99999, year99999), (Samples.reference, year99999), (Date.distantFuture, Date.distantFuture.addingTimeInterval(1)),
                             (Date.distantPast.addingTimeInterval(-1), Samples.reference)] {
            let message = await Self.refusal(sample(start, end), in: store)
            #expect(message?.contains("between years 1 and 4000") == true, "\(start)–\(end): \(message ?? "saved")")
        }
        #expect(await Self.refusal(sample(.distantPast, .distantFuture), in: store) == nil)
    }

    @Test("A date of birth after today is refused by setDateOfBirth and saveOwnerProfile; ones in 1900 and 1980 are kept")
    func futureDateOfBirth() async throws {
        let store = TestStores.memory()
        #expect(throws: HKError.self) { try store.setDateOfBirth(DateComponents(year: 2100, month: 1, day: 1)) }
        await #expect(throws: HKError.self) {
            try await store.saveOwnerProfile(HKOwnerProfile(givenName: "Ada", dateOfBirth: DateComponents(year: 2100, month: 1, day: 1)))
        }
        do {
            try await store.saveOwnerProfile(HKOwnerProfile(givenName: "Ada", dateOfBirth: DateComponents(year: 2100, month: 1, day: 1)))
        } catch let error as HKError {
            #expect(error.code == .errorInvalidArgument && error.message.contains("future"))
        }
        try store.setDateOfBirth(DateComponents(year: 1900, month: 1, day: 1))
        #expect(try store.dateOfBirthComponents().year == 1900)
        try await store.saveOwnerProfile(HKOwnerProfile(givenName: "Ada", dateOfBirth: DateComponents(year: 1980, month: 2, day: 29)))
        let birth = try await store.ownerProfile().dateOfBirth
        #expect(birth?.year == 1980 && birth?.month == 2 && birth?.day == 29)
    }
}
