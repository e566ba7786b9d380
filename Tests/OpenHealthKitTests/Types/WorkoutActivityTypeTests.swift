import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Workout activity types")
struct WorkoutActivityTypeTests {
    static let rawValues: [(HKWorkoutActivityType, UInt)] = [
        (.americanFootball, 1), (.archery, 2), (.cycling, 13), (.elliptical, 16), (.functionalStrengthTraining, 20),
        (.hiking, 24), (.mindAndBody, 29), (.running, 37), (.swimming, 46), (.traditionalStrengthTraining, 50),
        (.walking, 52), (.yoga, 57), (.barre, 58), (.coreTraining, 59), (.highIntensityIntervalTraining, 63),
        (.wheelchairRunPace, 71), (.taiChi, 72), (.mixedCardio, 73), (.handCycling, 74), (.discSports, 75),
        (.fitnessGaming, 76), (.cardioDance, 77), (.socialDance, 78), (.pickleball, 79), (.cooldown, 80),
        (.swimBikeRun, 82), (.transition, 83), (.underwaterDiving, 84), (.other, 3000),
    ]

    @Test("Raw values match HealthKit", arguments: rawValues)
    func rawValue(type: HKWorkoutActivityType, expected: UInt) {
        #expect(type.rawValue == expected)
        #expect(HKWorkoutActivityType(rawValue: expected) == type)
    }

    @Test("All 84 cases, 1 through 84 except 81, plus other")
    func allCases() {
        let raws = HKWorkoutActivityType.allCases.map(\.rawValue)
        #expect(raws.count == 84)
        #expect(raws == Array(1...80) + [82, 83, 84, 3000])
        #expect(HKWorkoutActivityType(rawValue: 81) == nil)
        #expect(HKWorkoutActivityType(rawValue: 0) == nil)
    }

    @Test("Display names, case names and parsing round-trip for every case")
    func nameRoundTrip() {
        for type in HKWorkoutActivityType.allCases {
            #expect(HKWorkoutActivityType(name: type.name) == type, "\(type.name)")
            #expect(HKWorkoutActivityType(name: type.caseName) == type, "\(type.caseName)")
            #expect(HKWorkoutActivityType(name: type.caseName.uppercased()) == type)
            #expect(type.name != "Unknown")
        }
        let names = HKWorkoutActivityType.allCases.map(\.name)
        #expect(Set(names).count == names.count)
        let caseNames = HKWorkoutActivityType.allCases.map(\.caseName)
        #expect(Set(caseNames).count == caseNames.count)
    }

    @Test("Parsing accepts common spellings and rejects others")
    func parsing() {
        #expect(HKWorkoutActivityType(name: "running") == .running)
        #expect(HKWorkoutActivityType(name: "RUNNING") == .running)
        #expect(HKWorkoutActivityType(name: "Running").map(\.name) == "Running")
        #expect(HKWorkoutActivityType(name: "traditional strength training") == .traditionalStrengthTraining)
        #expect(HKWorkoutActivityType(name: "high-intensity-interval-training") == .highIntensityIntervalTraining)
        #expect(HKWorkoutActivityType(name: "tai_chi") == .taiChi)
        #expect(HKWorkoutActivityType(name: "HKWorkoutActivityTypeSwimming") == .swimming)
        #expect(HKWorkoutActivityType(name: "mind and body") == .mindAndBody)
        #expect(HKWorkoutActivityType(name: "") == nil)
        #expect(HKWorkoutActivityType(name: "quidditch") == nil)
        #expect(HKWorkoutActivityType(name: "HKWorkoutActivityType") == nil)
    }

    @Test("Sample display names")
    func displayNames() {
        #expect(HKWorkoutActivityType.running.name == "Running")
        #expect(HKWorkoutActivityType.highIntensityIntervalTraining.name == "High Intensity Interval Training")
        #expect(HKWorkoutActivityType.other.name == "Other")
        #expect(HKWorkoutActivityType.traditionalStrengthTraining.caseName == "traditionalStrengthTraining")
    }
}
