import Foundation
import Testing
@testable import OpenHealthKit

/// `HKObjectType.sampleType(named:)` and `characteristicType(named:)`, the lookups the `health`
/// CLI, `health ui` and the importers use, against every type the store keeps.
@Suite("Type lookup by name")
struct TypeLookupTests {
    /// Every sample type the store can hold, built from each catalog's identifiers: quantity,
    /// category, correlation and clinical types, workouts, workout routes and verifiable records.
    static var storedSampleTypes: [HKSampleType] {
        var types: [HKSampleType] = HKQuantityTypeIdentifier.allKnown.map { HKQuantityType($0) }
        types += Set(HKCategoryTypeIdentifier.allKnown.map(\.rawValue)).sorted()
            .map { HKCategoryType(HKCategoryTypeIdentifier(rawValue: $0)) } as [HKSampleType]
        types += HKCorrelationTypeIdentifier.allKnown.map { HKCorrelationType($0) } as [HKSampleType]
        types += HKClinicalTypeIdentifier.allKnown.map { HKClinicalType($0) } as [HKSampleType]
        types += [HKWorkoutType(), HKSeriesType.workoutRoute(), HKVerifiableClinicalRecordType()] as [HKSampleType]
        types += newSampleTypes
        return types
    }

    /// The sample types that are neither quantity, category, correlation nor clinical types.
    static var newSampleTypes: [HKSampleType] {
        [HKObjectType.electrocardiogramType(), HKObjectType.audiogramSampleType(), HKObjectType.visionPrescriptionType(),
         HKSeriesType.heartbeat(), HKStateOfMindType(), HKScoredAssessmentType(.GAD7), HKScoredAssessmentType(.PHQ9),
         HKMedicationDoseEventType()]
    }

    @Test("allSampleTypes holds every sample type the store keeps but clinical records: ECGs, audiograms, prescriptions, heartbeats too")
    func allSampleTypesIsComplete() {
        let all = HKObjectType.allSampleTypes
        #expect(Set(all.map(\.identifier)).count == all.count, "each type once")
        let clinical = Set(HKClinicalTypeIdentifier.allKnown.map(\.rawValue) + [HKVerifiableClinicalRecordType.identifierString])
        let expected = Self.storedSampleTypes.filter { !clinical.contains($0.identifier) }
        #expect(Set(all.map(\.identifier)) == Set(expected.map(\.identifier)))
        for type in Self.newSampleTypes + [HKSeriesType.workoutRoute()] {
            #expect(all.contains(type), "\(type.identifier)")
        }
        // The same classes as HealthKit's own factory methods return.
        #expect(all.contains { $0 is HKElectrocardiogramType } && all.contains { $0 is HKAudiogramSampleType })
        #expect(all.contains { $0 is HKPrescriptionType } && all.contains { $0 is HKStateOfMindType })
        #expect(all.filter { $0 is HKScoredAssessmentType }.count == 2 && all.filter { $0 is HKSeriesType }.count == 2)
    }

    @Test("ECGs, audiograms, vision prescriptions and heartbeat series are found by their identifier and short names")
    func clinicalMeasurementLookups() throws {
        let cases: [(names: [String], type: HKSampleType)] = [
            (["HKDataTypeIdentifierElectrocardiogram", "electrocardiogram", "ECG", "electrocardiograms"], HKObjectType.electrocardiogramType()),
            (["HKDataTypeIdentifierAudiogram", "audiogram", "Audiograms"], HKObjectType.audiogramSampleType()),
            (["HKVisionPrescriptionTypeIdentifier", "visionPrescription", "visionprescriptions"], HKObjectType.visionPrescriptionType()),
            (["HKDataTypeIdentifierHeartbeatSeries", "heartbeat", "heartbeatSeries"], HKSeriesType.heartbeat()),
        ]
        for entry in cases {
            for name in entry.names {
                let found = try #require(HKObjectType.sampleType(named: name), "\(name)")
                #expect(found == entry.type, "\(name) found \(found.identifier)")
            }
        }
    }

    @Test("workoutRoute is found by its identifier and its Swift name, in any case")
    func workoutRoute() throws {
        for name in ["HKWorkoutRouteTypeIdentifier", "workoutRoute", "WORKOUTROUTE", " workoutroute "] {
            let type = try #require(HKObjectType.sampleType(named: name), "\(name)")
            #expect(type is HKSeriesType)
            #expect(type == HKSeriesType.workoutRoute())
            #expect(type.identifier == HKWorkoutRouteTypeIdentifier)
        }
        #expect(HKObjectType.seriesType(forIdentifier: HKWorkoutRouteTypeIdentifier) == HKSeriesType.workoutRoute())
    }

    @Test("Every sample type the store keeps round-trips through its identifier")
    func everyStoredSampleType() throws {
        let types = Self.storedSampleTypes
        #expect(Set(types.map(\.identifier)).count == types.count, "each type once")
        for type in types {
            let found = try #require(HKObjectType.sampleType(named: type.identifier), "\(type.identifier)")
            // Equality compares the identifier and the class: a route must come back an HKSeriesType.
            #expect(found == type, "\(type.identifier) came back as \(Swift.type(of: found)) \(found.identifier)")
            #expect(HKObjectType.sampleType(named: type.identifier.lowercased()) == type)
            // The store rebuilds the same type from the identifier it keeps in its rows.
            #expect(HKObjectType.type(forIdentifierString: type.identifier) == type, "\(type.identifier)")
        }
    }

    @Test("Every sample type with a prefixed identifier is found by its short name")
    func shortNames() throws {
        let prefixes = ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier", "HKClinicalTypeIdentifier"]
        var checked = 0
        for type in Self.storedSampleTypes {
            guard let prefix = prefixes.first(where: type.identifier.hasPrefix) else { continue }
            let short = String(type.identifier.dropFirst(prefix.count))
            let found = try #require(HKObjectType.sampleType(named: short), "\(short)")
            #expect(found == type, "\(short) found \(found.identifier), not \(type.identifier)")
            checked += 1
        }
        #expect(checked == Self.storedSampleTypes.count - 3 - Self.newSampleTypes.count)
    }

    @Test("Every characteristic round-trips through its identifier and its short name")
    func characteristics() throws {
        for identifier in HKCharacteristicTypeIdentifier.allKnown {
            let type = HKCharacteristicType(identifier)
            #expect(HKObjectType.characteristicType(named: identifier.rawValue) == type)
            #expect(HKObjectType.characteristicType(named: String(identifier.rawValue.dropFirst("HKCharacteristicTypeIdentifier".count))) == type)
            #expect(HKObjectType.type(forIdentifierString: identifier.rawValue) == type)
            // A characteristic is not a sample type.
            #expect(HKObjectType.sampleType(named: identifier.rawValue) == nil)
        }
    }

    @Test("Unknown and empty names find nothing")
    func unknownNames() {
        for name in ["", "   ", "HKQuantityTypeIdentifierNotAType", "notAType", "route", "HKSeriesTypeIdentifierWorkoutRoute"] {
            #expect(HKObjectType.sampleType(named: name) == nil, "\(name)")
        }
    }
}
