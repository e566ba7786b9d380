import OpenHealthKit

extension HealthTypes {
    /// The name people use for a type, from the everyday names (the ones the CLI takes):
    /// "Weight", "Steps", "Heart Rate", "Blood Pressure"; HealthKit's display name for a type
    /// without one, without HealthKit's `HK` prefix and `Type Identifier` ("Workout Routes",
    /// "Heartbeat Series").
    /// - Parameter type: the sample type.
    /// - Returns: the name shown for `type`.
    public static func personName(of type: HKSampleType) -> String {
        if let name = otherNames[type.identifier] { return name }
        guard let everyday = entry(for: type).everydayNames.first else { return words(of: type.identifier) }
        if let special = ["bmi": "BMI", "hrv": "Heart Rate Variability", "vo2max": "Cardio Fitness (VO2 max)"][everyday] { return special }
        return everyday.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    /// Names of the identifiers that are not sample types but that an import counts.
    static let otherNames: [String: String] = [
        HKActivitySummaryTypeIdentifier: "Activity Rings",
        HKWorkoutRouteTypeIdentifier: "Workout Routes",
        HKDataTypeIdentifierHeartbeatSeries: "Heartbeat Series",
        HKVisionPrescriptionTypeIdentifier: "Vision Prescriptions",
        "HKDataTypeIdentifierElectrocardiogram": "ECGs",
        "HKDataTypeIdentifierAudiogram": "Hearing Tests",
        "HKDataTypeStateOfMind": "State of Mind",
        HKScoredAssessmentTypeIdentifier.GAD7.rawValue: "Anxiety Risk (GAD-7)",
        HKScoredAssessmentTypeIdentifier.PHQ9.rawValue: "Depression Risk (PHQ-9)",
    ]

    /// The name people use for a type identifier, as an import's summary shows it: the
    /// sample type's name (``personName(of:)``), "Activity Rings" for activity summaries,
    /// "Workout Routes" for routes, and for any other identifier its words without HealthKit's
    /// `HK` prefix and `Type Identifier` ("Lab Result Record").
    /// - Parameter identifier: a HealthKit type identifier.
    /// - Returns: the name shown for `identifier`.
    public static func personName(forIdentifier identifier: String) -> String {
        if let name = otherNames[identifier] { return name }
        if let type = HKObjectType.sampleType(named: identifier), type.identifier == identifier { return personName(of: type) }
        return words(of: identifier)
    }

    /// HealthKit's display name of an identifier without `HK`, `Type`, `Data` and `Identifier`.
    private static func words(of identifier: String) -> String {
        let words = HKObjectType.displayName(forIdentifier: identifier).split(separator: " ").map(String.init)
        let kept = words.map { $0.hasPrefix("HK") && $0.count > 2 ? String($0.dropFirst(2)) : $0 }
            .filter { !["Type", "Identifier", "Data", "HK"].contains($0) }
        return kept.isEmpty ? identifier : kept.joined(separator: " ")
    }
}

extension HealthTypes {
    /// Titles of adding one sample of the types whose name alone does not read as a thing
    /// added.
    static let addTitles: [String: String] = [
        HKWorkoutTypeIdentifier: "Add a workout",
        HKCategoryTypeIdentifier.mindfulSession.rawValue: "Add a mindful session",
        HKCategoryTypeIdentifier.appleStandHour.rawValue: "Add a stand hour",
        HKCategoryTypeIdentifier.menstrualFlow.rawValue: "Add period flow",
        HKQuantityTypeIdentifier.waistCircumference.rawValue: "Add a waist measurement",
    ]

    /// The title of adding one sample of a type, in sentence case: "Add a workout",
    /// "Add weight", "Add heart rate", "Add BMI".
    /// - Parameter type: the sample type.
    /// - Returns: the title.
    public static func addTitle(of type: HKSampleType) -> String {
        if let title = addTitles[type.identifier] { return title }
        let name = personName(of: type)
        // An acronym ("BMI", "HRV") keeps its capitals; other words start in lower case.
        let acronym = name.dropFirst().first?.isUppercase ?? false
        return "Add " + (acronym ? name : name.prefix(1).lowercased() + name.dropFirst().lowercased())
    }
}
