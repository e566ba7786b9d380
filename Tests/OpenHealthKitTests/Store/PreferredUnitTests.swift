import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// The owner's preferred units, kept sealed in the store and read back by every app.
struct PreferredUnitTests {
    private let bodyMass = HKQuantityType(.bodyMass)
    private let glucose = HKQuantityType(.bloodGlucose)
    private let steps = HKQuantityType(.stepCount)

    @Test func theOwnersChoiceIsStoredAndSeenByAppsAfterReopening() async throws {
        let folder = TemporaryFolder()
        let mgPerDL = HKUnit(from: "mg/dL")
        do {
            let owner = TestStores.owner(folder)
            try owner.setPreferredUnit(.pound(), for: bodyMass)
            try owner.setPreferredUnit(mgPerDL, for: glucose)
        }
        let reopened = TestStores.owner(folder)
        let units = try await reopened.preferredUnits(for: [bodyMass, glucose, steps])
        #expect(units[bodyMass] == .pound())
        #expect(units[glucose] == mgPerDL)
        #expect(units[steps] == .count())
        let app = TestStores.app(folder, bundle: "com.example.reader")
        #expect(try await app.preferredUnits(for: [bodyMass])[bodyMass] == .pound())
    }

    @Test func nilGoesBackToTheDefault() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try owner.setPreferredUnit(.pound(), for: bodyMass)
        try owner.setPreferredUnit(nil, for: bodyMass)
        let unit = try await owner.preferredUnits(for: [bodyMass])[bodyMass]
        let expected: HKUnit = Locale.current.measurementSystem == .us ? .pound() : .gramUnit(with: .kilo)
        #expect(unit == expected)
    }

    @Test func aUnitThatDoesNotMeasureTheTypeIsRefusedAndChangesNothing() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try owner.setPreferredUnit(.pound(), for: bodyMass)
        #expect(throws: HKError.self) { try owner.setPreferredUnit(.count(), for: bodyMass) }
        #expect(try await owner.preferredUnits(for: [bodyMass])[bodyMass] == .pound())
    }

    @Test func onlyTheOwnerMaySetThem() async throws {
        let folder = TemporaryFolder()
        _ = try await TestStores.owner(folder).preferredUnits(for: [bodyMass])
        let app = TestStores.app(folder, bundle: "com.example.writer")
        #expect(throws: HKError.self) { try app.setPreferredUnit(.pound(), for: bodyMass) }
        #expect(try await TestStores.owner(folder).preferredUnits(for: [bodyMass])[bodyMass] != .pound()
                || Locale.current.measurementSystem == .us)
    }
}
