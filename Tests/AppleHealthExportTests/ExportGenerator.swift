import Foundation

/// Writes export.xml files in the Health app's format: the DOCTYPE with the internal DTD
/// subset a real export starts with, `HealthData`, `ExportDate`, `Me`, then records,
/// correlations, workouts and activity summaries.
struct ExportGenerator {
    /// The DTD at the top of a real export.xml (HealthKit Export Version 11), abridged to the
    /// elements written here plus the ones the importer counts as unsupported.
    static let doctype = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 11 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate
          value CDATA #REQUIRED
        >
        <!ELEMENT Me EMPTY>
        <!ATTLIST Me
          HKCharacteristicTypeIdentifierDateOfBirth         CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBiologicalSex       CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBloodType           CDATA #REQUIRED
          HKCharacteristicTypeIdentifierFitzpatrickSkinType CDATA #REQUIRED
          HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #IMPLIED
        >
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
        <!ELEMENT Correlation ((MetadataEntry|Record)*)>
        <!ATTLIST Correlation
          type          CDATA #REQUIRED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutStatistics|WorkoutRoute)*)>
        <!ATTLIST Workout
          workoutActivityType   CDATA #REQUIRED
          duration              CDATA #IMPLIED
          durationUnit          CDATA #IMPLIED
          totalDistance         CDATA #IMPLIED
          totalDistanceUnit     CDATA #IMPLIED
          totalEnergyBurned     CDATA #IMPLIED
          totalEnergyBurnedUnit CDATA #IMPLIED
          sourceName            CDATA #REQUIRED
          sourceVersion         CDATA #IMPLIED
          device                CDATA #IMPLIED
          creationDate          CDATA #IMPLIED
          startDate             CDATA #REQUIRED
          endDate               CDATA #REQUIRED
        >
        <!ELEMENT WorkoutEvent ((MetadataEntry)*)>
        <!ATTLIST WorkoutEvent
          type         CDATA #REQUIRED
          date         CDATA #REQUIRED
          duration     CDATA #IMPLIED
          durationUnit CDATA #IMPLIED
        >
        <!ELEMENT WorkoutStatistics EMPTY>
        <!ATTLIST WorkoutStatistics
          type      CDATA #REQUIRED
          startDate CDATA #REQUIRED
          endDate   CDATA #REQUIRED
          average   CDATA #IMPLIED
          minimum   CDATA #IMPLIED
          maximum   CDATA #IMPLIED
          sum       CDATA #IMPLIED
          unit      CDATA #IMPLIED
        >
        <!ELEMENT WorkoutRoute ((MetadataEntry|FileReference)*)>
        <!ATTLIST WorkoutRoute
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT FileReference EMPTY>
        <!ATTLIST FileReference
          path CDATA #REQUIRED
        >
        <!ELEMENT ActivitySummary EMPTY>
        <!ATTLIST ActivitySummary
          dateComponents           CDATA #IMPLIED
          activeEnergyBurned       CDATA #IMPLIED
          activeEnergyBurnedGoal   CDATA #IMPLIED
          activeEnergyBurnedUnit   CDATA #IMPLIED
          appleExerciseTime        CDATA #IMPLIED
          appleExerciseTimeGoal    CDATA #IMPLIED
          appleStandHours          CDATA #IMPLIED
          appleStandHoursGoal      CDATA #IMPLIED
        >
        <!ELEMENT MetadataEntry EMPTY>
        <!ATTLIST MetadataEntry
          key   CDATA #REQUIRED
          value CDATA #REQUIRED
        >
        ]>

        """

    static let watch = "&lt;&lt;HKDevice: 0x283c0a8a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:7.0&gt;"

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    var body: [String] = []

    mutating func record(type: String, unit: String? = nil, value: String, source: String = "Jane’s iPhone", version: String? = "13.5",
                         device: String? = nil, start: String, end: String, metadata: [(String, String)] = []) {
        body.append(Self.recordText(type: type, unit: unit, value: value, source: source, version: version, device: device,
                                    start: start, end: end, metadata: metadata, indent: " "))
    }

    static func recordText(type: String, unit: String?, value: String, source: String, version: String?, device: String?,
                           start: String, end: String, metadata: [(String, String)], indent: String) -> String {
        var text = "\(indent)<Record type=\"\(type)\" sourceName=\"\(escape(source))\""
        if let version { text += " sourceVersion=\"\(version)\"" }
        if let device { text += " device=\"\(device)\"" }
        if let unit { text += " unit=\"\(escape(unit))\"" }
        text += " creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(escape(value))\""
        if metadata.isEmpty { return text + "/>" }
        text += ">\n"
        for (key, value) in metadata { text += "\(indent)  <MetadataEntry key=\"\(escape(key))\" value=\"\(escape(value))\"/>\n" }
        return text + "\(indent)</Record>"
    }

    mutating func raw(_ text: String) { body.append(text) }

    /// The document: DOCTYPE, HealthData, ExportDate, Me, then the body.
    func document(me: String = """
        <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" \
        HKCharacteristicTypeIdentifierBloodType="HKBloodTypeABNegative" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" \
        HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
        """) -> String {
        Self.doctype + "<HealthData locale=\"en_US\">\n <ExportDate value=\"2021-01-01 12:00:00 +0100\"/>\n " + me + "\n"
            + body.joined(separator: "\n") + "\n</HealthData>\n"
    }

    /// An export with every element kind the importer reads, and some it does not.
    static func full() -> ExportGenerator {
        var export = ExportGenerator()
        export.record(type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "62", source: "Jane’s Apple Watch", version: "7.0",
                      device: watch, start: "2020-10-01 08:30:00 -0700", end: "2020-10-01 08:30:00 -0700",
                      metadata: [("HKMetadataKeyHeartRateMotionContext", "1")])
        export.record(type: "HKQuantityTypeIdentifierBodyMass", unit: "lb", value: "154.3", start: "2020-10-02 07:00:00 +0200",
                      end: "2020-10-02 07:00:00 +0200", metadata: [("HKWasUserEntered", "1"), ("Note", "after <run> & shower")])
        export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "1200", source: "Jane’s iPhone", version: "14.2",
                      start: "2020-10-02 09:00:00 +0200", end: "2020-10-02 10:00:00 +0200")
        export.record(type: "HKCategoryTypeIdentifierSleepAnalysis", value: "HKCategoryValueSleepAnalysisAsleepCore",
                      start: "2020-10-02 01:00:00 +0200", end: "2020-10-02 03:00:00 +0200")
        export.record(type: "HKCategoryTypeIdentifierMindfulSession", value: "HKCategoryValueNotApplicable",
                      start: "2020-10-02 12:00:00 +0200", end: "2020-10-02 12:10:00 +0200")
        export.record(type: "HKDataTypeSleepDurationGoal", unit: "hr", value: "8", start: "2020-10-02 12:00:00 +0200", end: "2020-10-02 12:00:00 +0200")
        export.raw("""
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="2.1" creationDate="2020-10-03 08:00:00 -0400" startDate="2020-10-03 08:00:00 -0400" endDate="2020-10-03 08:00:00 -0400">
            \(recordText(type: "HKQuantityTypeIdentifierBloodPressureSystolic", unit: "mmHg", value: "121", source: "Omron", version: "2.1", device: nil,
                         start: "2020-10-03 08:00:00 -0400", end: "2020-10-03 08:00:00 -0400", metadata: [], indent: "  "))
            \(recordText(type: "HKQuantityTypeIdentifierBloodPressureDiastolic", unit: "mmHg", value: "79", source: "Omron", version: "2.1", device: nil,
                         start: "2020-10-03 08:00:00 -0400", end: "2020-10-03 08:00:00 -0400", metadata: [], indent: "  "))
             </Correlation>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" sourceName="Jane’s Apple Watch" sourceVersion="7.0" device="\(watch)" creationDate="2020-10-04 07:31:00 +0100" startDate="2020-10-04 07:00:00 +0100" endDate="2020-10-04 07:31:00 +0100">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <MetadataEntry key="HKWeatherTemperature" value="61 degF"/>
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2020-10-04 07:10:00 +0100" duration="0.5" durationUnit="min"/>
              <WorkoutEvent type="HKWorkoutEventTypeResume" date="2020-10-04 07:10:30 +0100"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2020-10-04 07:00:00 +0100" endDate="2020-10-04 07:31:00 +0100" sum="312.5" unit="kcal"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2020-10-04 07:00:00 +0100" endDate="2020-10-04 07:31:00 +0100" sum="5.2" unit="km"/>
              <WorkoutRoute sourceName="Jane’s Apple Watch" sourceVersion="7.0" creationDate="2020-10-04 07:31:00 +0100" startDate="2020-10-04 07:00:00 +0100" endDate="2020-10-04 07:31:00 +0100">
               <FileReference path="/workout-routes/route_2020-10-04_7.31am.gpx"/>
              </WorkoutRoute>
             </Workout>
             <ActivitySummary dateComponents="2020-10-04" activeEnergyBurned="400" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="Cal"/>
            """)
        return export
    }
}
