import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Quantity and category catalogs")
struct CatalogTests {
    /// Canonical unit and style as `HKTypeIdentifiers.h` (iOS 18.1) comments give them.
    static let expectedDescriptors: [(HKQuantityTypeIdentifier, String, HKQuantityAggregationStyle)] = [
        (.stepCount, "count", .cumulative),
        (.heartRate, "count/s", .discreteTemporallyWeighted),
        (.atrialFibrillationBurden, "%", .discreteTemporallyWeighted),
        (.respiratoryRate, "count/s", .discreteArithmetic),
        (.restingHeartRate, "count/min", .discreteArithmetic),
        (.vo2Max, "ml/(kg*min)", .discreteArithmetic),
        (.physicalEffort, "kcal/(kg*hr)", .discreteArithmetic),
        (.environmentalAudioExposure, "dBASPL", .discreteEquivalentContinuousLevel),
        (.headphoneAudioExposure, "dBASPL", .discreteEquivalentContinuousLevel),
        (.environmentalSoundReduction, "dBASPL", .discreteEquivalentContinuousLevel),
        (.dietaryWater, "mL", .cumulative),
        (.dietaryEnergyConsumed, "kcal", .cumulative),
        (.dietaryProtein, "g", .cumulative),
        (.uvExposure, "count", .discreteArithmetic),
        (.workoutEffortScore, "appleEffortScore", .discreteArithmetic),
        (.bloodGlucose, "mg/dL", .discreteArithmetic),
        (.oxygenSaturation, "%", .discreteArithmetic),
        (.bodyMass, "kg", .discreteArithmetic),
        (.bodyTemperature, "degC", .discreteArithmetic),
        (.bloodPressureSystolic, "mmHg", .discreteArithmetic),
        (.insulinDelivery, "IU", .cumulative),
        (.electrodermalActivity, "S", .discreteArithmetic),
        (.peakExpiratoryFlowRate, "L/min", .discreteArithmetic),
        (.runningVerticalOscillation, "cm", .discreteArithmetic),
        (.runningGroundContactTime, "ms", .discreteArithmetic),
        (.appleExerciseTime, "min", .cumulative),
        (.distanceWalkingRunning, "m", .cumulative),
        (.walkingSpeed, "m/s", .discreteArithmetic),
        (.cyclingPower, "W", .discreteArithmetic),
    ]

    @Test("Spot-checked units and styles", arguments: expectedDescriptors)
    func descriptor(identifier: HKQuantityTypeIdentifier, unit: String, style: HKQuantityAggregationStyle) throws {
        let descriptor = try #require(QuantityTypeCatalog.descriptor(for: identifier))
        #expect(descriptor.identifier == identifier)
        #expect(descriptor.canonicalUnitString == unit)
        #expect(descriptor.aggregationStyle == style)
    }

    @Test("Every known quantity identifier has exactly one catalog entry")
    func catalogCoversAllKnown() {
        let catalogIDs = QuantityTypeCatalog.all.map(\.identifier)
        #expect(catalogIDs.count == HKQuantityTypeIdentifier.allKnown.count)
        #expect(Set(catalogIDs).count == catalogIDs.count)
        #expect(Set(catalogIDs) == Set(HKQuantityTypeIdentifier.allKnown))
        for identifier in HKQuantityTypeIdentifier.allKnown {
            let descriptor = QuantityTypeCatalog.descriptor(for: identifier)
            #expect(descriptor?.identifier == identifier, "\(identifier.rawValue)")
            #expect(descriptor?.canonicalUnitString.isEmpty == false, "\(identifier.rawValue)")
        }
    }

    @Test("Every dietary type is cumulative, in grams unless energy or water")
    func dietaryTypes() {
        let dietary = QuantityTypeCatalog.all.filter { $0.identifier.rawValue.hasPrefix("HKQuantityTypeIdentifierDietary") }
        #expect(dietary.count == 39)
        for entry in dietary {
            #expect(entry.aggregationStyle == .cumulative)
            switch entry.identifier {
            case .dietaryEnergyConsumed: #expect(entry.canonicalUnitString == "kcal")
            case .dietaryWater: #expect(entry.canonicalUnitString == "mL")
            default: #expect(entry.canonicalUnitString == "g", "\(entry.identifier.rawValue)")
            }
        }
    }

    @Test("Style counts match the header")
    func styleCounts() {
        let styles = QuantityTypeCatalog.all.map(\.aggregationStyle)
        #expect(styles.filter { $0 == .discreteTemporallyWeighted }.count == 2)
        #expect(styles.filter { $0 == .discreteEquivalentContinuousLevel }.count == 3)
        #expect(styles.filter { $0 == .cumulative }.count == 63)
        #expect(styles.filter { $0 == .discreteArithmetic }.count == 52)
    }

    @Test("Unknown identifiers have no descriptor and no allowed values")
    func unknownIdentifiers() {
        #expect(QuantityTypeCatalog.descriptor(for: HKQuantityTypeIdentifier("HKQuantityTypeIdentifierNope")) == nil)
        #expect(CategoryTypeCatalog.allowedValues(for: HKCategoryTypeIdentifier("HKCategoryTypeIdentifierNope")) == nil)
        #expect(CategoryTypeCatalog.valueEnumName(for: HKCategoryTypeIdentifier("HKCategoryTypeIdentifierNope")) == nil)
    }

    @Test("Every known category identifier has allowed values")
    func categoryCoverage() {
        for identifier in HKCategoryTypeIdentifier.allKnown {
            let values = CategoryTypeCatalog.allowedValues(for: identifier)
            #expect(values?.isEmpty == false, "\(identifier.rawValue)")
            #expect(CategoryTypeCatalog.valueEnumName(for: identifier) != nil, "\(identifier.rawValue)")
        }
    }

    static let expectedAllowedValues: [(HKCategoryTypeIdentifier, Set<Int>)] = [
        (.sleepAnalysis, [0, 1, 2, 3, 4, 5]),
        (.appleStandHour, [0, 1]),
        (.mindfulSession, [0]),
        (.highHeartRateEvent, [0]),
        (.sexualActivity, [0]),
        (.pregnancy, [0]),
        (.sleepApneaEvent, [0]),
        (.menstrualFlow, [1, 2, 3, 4, 5]),
        (.bleedingAfterPregnancy, [1, 2, 3, 4, 5]),
        (.cervicalMucusQuality, [1, 2, 3, 4, 5]),
        (.ovulationTestResult, [1, 2, 3, 4]),
        (.pregnancyTestResult, [1, 2, 3]),
        (.progesteroneTestResult, [1, 2, 3]),
        (.contraceptive, [1, 2, 3, 4, 5, 6, 7]),
        (.headache, [0, 1, 2, 3, 4]),
        (.appetiteChanges, [0, 1, 2, 3]),
        (.moodChanges, [0, 1]),
        (.sleepChanges, [0, 1]),
        (.environmentalAudioExposureEvent, [1]),
        (.headphoneAudioExposureEvent, [1]),
        (.lowCardioFitnessEvent, [1]),
        (.appleWalkingSteadinessEvent, [1, 2, 3, 4]),
    ]

    @Test("Allowed values per category type", arguments: expectedAllowedValues)
    func allowedValues(identifier: HKCategoryTypeIdentifier, expected: Set<Int>) {
        #expect(CategoryTypeCatalog.allowedValues(for: identifier) == expected)
    }

    @Test("The deprecated audio exposure identifier resolves like the environmental one")
    func deprecatedAudioExposureIdentifier() {
        let old = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAudioExposureEvent")
        #expect(old == .environmentalAudioExposureEvent)
        #expect(CategoryTypeCatalog.allowedValues(for: old) == [1])
    }

    @Test("Value enum names for a few types")
    func valueEnumNames() {
        #expect(CategoryTypeCatalog.valueEnumName(for: .sleepAnalysis) == "HKCategoryValueSleepAnalysis")
        #expect(CategoryTypeCatalog.valueEnumName(for: .headache) == "HKCategoryValueSeverity")
        #expect(CategoryTypeCatalog.valueEnumName(for: .mindfulSession) == "HKCategoryValue")
        #expect(CategoryTypeCatalog.valueEnumName(for: .menstrualFlow) == "HKCategoryValueVaginalBleeding")
    }

    @Test("Symptom types all take severity, except the three with their own enums")
    func symptomGroups() {
        let severityTypes = HKCategoryTypeIdentifier.allKnown.filter {
            CategoryTypeCatalog.valueEnumName(for: $0) == "HKCategoryValueSeverity"
        }
        #expect(severityTypes.count == 36)
        let notApplicable = HKCategoryTypeIdentifier.allKnown.filter { CategoryTypeCatalog.allowedValues(for: $0) == [0] }
        #expect(notApplicable.count == 15)
    }
}
