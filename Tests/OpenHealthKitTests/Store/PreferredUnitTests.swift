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

    /// Every choice is read in one statement over a key range: each type gets its own choice and
    /// only its own, beside characteristics and whatever type the range's edges could catch.
    @Test func oneReadGivesEveryTypeItsOwnChoiceAndNoOtherKey() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try owner.setBiologicalSex(.female)
        try owner.setBloodType(.oPositive)
        let quantityTypes = HKObjectType.allSampleTypes.compactMap { $0 as? HKQuantityType }
        var generator = SystemRandomNumberGenerator()
        var chosen: [HKQuantityType: HKUnit] = [:]
        for type in quantityTypes where Bool.random(using: &generator) {
            try owner.setPreferredUnit(type.canonicalUnit, for: type)
            chosen[type] = type.canonicalUnit
        }
        try owner.setPreferredUnit(.pound(), for: bodyMass)
        chosen[bodyMass] = .pound()
        let all = try await owner.preferredUnits(for: Set(quantityTypes))
        #expect(all.count == quantityTypes.count)
        for type in quantityTypes {
            let alone = try await owner.preferredUnits(for: [type])[type]
            #expect(all[type] == alone, "\(type.identifier)")
            if let unit = chosen[type] { #expect(all[type] == unit, "\(type.identifier)") }
        }
        #expect(try owner.bloodType().bloodType == .oPositive)
    }
}
