import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Codable round trips")
struct CodableRoundTripTests {
    private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    private func json<T: Encodable>(_ value: T) throws -> String {
        try #require(String(data: JSONEncoder().encode(value), encoding: .utf8))
    }

    @Test("Identifiers encode as their bare raw strings")
    func identifiersEncodeAsStrings() throws {
        #expect(try json([HKQuantityTypeIdentifier.stepCount]) == #"["HKQuantityTypeIdentifierStepCount"]"#)
        #expect(try json([HKCategoryTypeIdentifier.sleepAnalysis]) == #"["HKCategoryTypeIdentifierSleepAnalysis"]"#)
        let decoded = try JSONDecoder().decode(
            [HKCharacteristicTypeIdentifier].self,
            from: Data(#"["HKCharacteristicTypeIdentifierBloodType"]"#.utf8)
        )
        #expect(decoded == [.bloodType])
    }

    @Test("Every known identifier survives a round trip")
    func identifierRoundTrips() throws {
        #expect(try roundTrip(HKQuantityTypeIdentifier.allKnown) == HKQuantityTypeIdentifier.allKnown)
        #expect(try roundTrip(HKCategoryTypeIdentifier.allKnown) == HKCategoryTypeIdentifier.allKnown)
        #expect(try roundTrip(HKCharacteristicTypeIdentifier.allKnown) == HKCharacteristicTypeIdentifier.allKnown)
        #expect(try roundTrip(HKCorrelationTypeIdentifier.allKnown) == HKCorrelationTypeIdentifier.allKnown)
        let custom = HKQuantityTypeIdentifier("com.example.Custom")
        #expect(try roundTrip(custom) == custom)
    }

    @Test("Enums encode as their raw numbers and round-trip every case")
    func enumRoundTrips() throws {
        #expect(try json([HKWorkoutActivityType.running, .other]) == "[37,3000]")
        #expect(try json([HKCategoryValueSleepAnalysis.asleepREM]) == "[5]")
        #expect(try roundTrip(HKWorkoutActivityType.allCases) == HKWorkoutActivityType.allCases)
        #expect(try roundTrip(HKCategoryValueSleepAnalysis.allCases) == HKCategoryValueSleepAnalysis.allCases)
        #expect(try roundTrip(HKCategoryValueSeverity.allCases) == HKCategoryValueSeverity.allCases)
        #expect(try roundTrip(HKBloodType.allCases) == HKBloodType.allCases)
        #expect(try roundTrip(HKFitzpatrickSkinType.allCases) == HKFitzpatrickSkinType.allCases)
        #expect(try roundTrip(HKWeatherCondition.allCases) == HKWeatherCondition.allCases)
        #expect(try roundTrip(HKQuantityAggregationStyle.allCases) == HKQuantityAggregationStyle.allCases)
        #expect(try roundTrip(HKAuthorizationStatus.allCases) == HKAuthorizationStatus.allCases)
    }

    @Test("Unknown raw numbers fail to decode")
    func unknownRawValuesFail() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([HKWorkoutActivityType].self, from: Data("[81]".utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([HKBiologicalSex].self, from: Data("[9]".utf8))
        }
    }
}
