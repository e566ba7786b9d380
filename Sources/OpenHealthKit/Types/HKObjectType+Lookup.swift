import Foundation

extension HKObjectType {
    /// Finds a sample type by a name a person types: the full identifier
    /// (`HKQuantityTypeIdentifierStepCount`), the Swift name (`stepCount`), `workout`,
    /// `workoutRoute` (`HKWorkoutRouteTypeIdentifier`), `heartbeatSeries`
    /// (`HKDataTypeIdentifierHeartbeatSeries`), `stateOfMind` (`HKDataTypeStateOfMind`), `GAD7`
    /// and `PHQ9` (`HKScoredAssessmentTypeIdentifierGAD7`…) or `verifiableClinicalRecord`;
    /// case-insensitive. Every sample type the store keeps is found by its identifier.
    /// OpenHealthKit API, used by the `health` CLI, `health ui` and importers.
    public static func sampleType(named name: String) -> HKSampleType? {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard !key.isEmpty else { return nil }
        if key == "workout" || key == "workouts" || key == HKWorkoutTypeIdentifier.lowercased() { return HKWorkoutType() }
        if key == "workoutroute" || key == "workoutroutes" || key == HKWorkoutRouteTypeIdentifier.lowercased() {
            return HKSeriesType.workoutRoute()
        }
        if key == "heartbeat" || key == "heartbeatseries" || key == HKDataTypeIdentifierHeartbeatSeries.lowercased() {
            return HKSeriesType.heartbeat()
        }
        if key == "stateofmind" || key == "statesofmind" || key == HKStateOfMindTypeIdentifierString.lowercased() {
            return HKStateOfMindType()
        }
        if let id = HKScoredAssessmentTypeIdentifier.allKnown.first(where: {
            $0.rawValue.lowercased() == key || $0.rawValue.dropFirst("HKScoredAssessmentTypeIdentifier".count).lowercased() == key
        }) {
            return HKScoredAssessmentType(id)
        }
        if let clinical = clinicalMeasurementType(named: key) { return clinical }
        if let medication = medicationSampleType(named: key) { return medication }
        if key == "verifiableclinicalrecord" || key == "verifiableclinicalrecords"
            || key == HKVerifiableClinicalRecordType.identifierString.lowercased() {
            return HKVerifiableClinicalRecordType()
        }
        func matches(_ raw: String, prefix: String) -> Bool {
            raw.lowercased() == key || raw.dropFirst(prefix.count).lowercased() == key
        }
        if let id = HKQuantityTypeIdentifier.allKnown.first(where: { matches($0.rawValue, prefix: "HKQuantityTypeIdentifier") }) {
            return HKQuantityType(id)
        }
        if let id = HKCategoryTypeIdentifier.allKnown.first(where: { matches($0.rawValue, prefix: "HKCategoryTypeIdentifier") }) {
            return HKCategoryType(id)
        }
        if let id = HKCorrelationTypeIdentifier.allKnown.first(where: { matches($0.rawValue, prefix: "HKCorrelationTypeIdentifier") }) {
            return HKCorrelationType(id)
        }
        if let id = HKClinicalTypeIdentifier.allKnown.first(where: { matches($0.rawValue, prefix: "HKClinicalTypeIdentifier") }) {
            return HKClinicalType(id)
        }
        return nil
    }

    /// Finds a characteristic type by its identifier or Swift name (`dateOfBirth`),
    /// case-insensitive (OpenHealthKit API).
    public static func characteristicType(named name: String) -> HKCharacteristicType? {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        let prefix = "HKCharacteristicTypeIdentifier"
        return HKCharacteristicTypeIdentifier.allKnown.first {
            $0.rawValue.lowercased() == key || $0.rawValue.dropFirst(prefix.count).lowercased() == key
        }.map { HKCharacteristicType($0) }
    }

    /// A short display name: "Step Count", "Heart Rate", "Workouts".
    public var displayName: String { HealthTypeNames.displayName(for: identifier) }

    /// The display name of a type identifier (OpenHealthKit API).
    public static func displayName(forIdentifier identifier: String) -> String {
        HealthTypeNames.displayName(for: identifier)
    }
}

extension HKObjectType {
    /// Every sample type OpenHealthKit knows: quantity, category and correlation types,
    /// workouts, medication dose events (iOS 26), state of mind, the GAD-7 and PHQ-9 scored
    /// assessments, electrocardiograms, audiograms, vision prescriptions, heartbeat series and
    /// workout routes (OpenHealthKit API). Clinical record types and verifiable clinical
    /// records are not sample types a store lists by type: HealthKit reads them with their own
    /// authorization, so they are left out.
    public static var allSampleTypes: [HKSampleType] {
        var types: [HKSampleType] = HKQuantityTypeIdentifier.allKnown.map { HKQuantityType($0) }
        let categories = Set(HKCategoryTypeIdentifier.allKnown.map(\.rawValue)).sorted()
        types += categories.map { HKCategoryType(HKCategoryTypeIdentifier(rawValue: $0)) } as [HKSampleType]
        types += HKCorrelationTypeIdentifier.allKnown.map { HKCorrelationType($0) } as [HKSampleType]
        types.append(HKWorkoutType())
        types.append(HKMedicationDoseEventType())
        types.append(HKStateOfMindType())
        types += HKScoredAssessmentTypeIdentifier.allKnown.map { HKScoredAssessmentType($0) } as [HKSampleType]
        types.append(HKObjectType.electrocardiogramType())
        types.append(HKObjectType.audiogramSampleType())
        types.append(HKObjectType.visionPrescriptionType())
        types.append(HKSeriesType.heartbeat())
        types.append(HKSeriesType.workoutRoute())
        return types
    }
}
