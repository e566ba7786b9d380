import CommonSupport
import Foundation
import ZIPFoundation

/// Writes Apple Health exports in the Health app's format, for tests and benchmarks: export.xml
/// (the DOCTYPE with the internal DTD subset a real export starts with, `HealthData`,
/// `ExportDate`, `Me`, then records, correlations, workouts, activity summaries and clinical
/// record references) and export.zip (`apple_health_export/` with export.xml, `clinical-records/`,
/// `workout-routes/` and whatever else is asked for).
public struct AppleHealthExportGenerator: Sendable {
    /// The DTD at the top of a real export.xml (HealthKit Export Version 11), abridged to the
    /// elements written here plus the ones the importer counts as unsupported.
    public static let doctype = """
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
          appleMoveTime            CDATA #IMPLIED
          appleMoveTimeGoal        CDATA #IMPLIED
          appleExerciseTime        CDATA #IMPLIED
          appleExerciseTimeGoal    CDATA #IMPLIED
          appleStandHours          CDATA #IMPLIED
          appleStandHoursGoal      CDATA #IMPLIED
        >
        <!ELEMENT ClinicalRecord EMPTY>
        <!ATTLIST ClinicalRecord
          type              CDATA #REQUIRED
          identifier        CDATA #REQUIRED
          sourceName        CDATA #REQUIRED
          sourceURL         CDATA #REQUIRED
          fhirVersion       CDATA #REQUIRED
          receivedDate      CDATA #REQUIRED
          resourceFilePath  CDATA #REQUIRED
        >
        <!ELEMENT MetadataEntry EMPTY>
        <!ATTLIST MetadataEntry
          key   CDATA #REQUIRED
          value CDATA #REQUIRED
        >
        ]>

        """

    /// A device as HealthKit describes it, escaped for an attribute.
    public static let watch = "&lt;&lt;HKDevice: 0x283c0a8a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:7.0&gt;"

    /// `text` escaped for an XML attribute.
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The elements after `Me`, one string each.
    public var body: [String] = []

    /// Creates an export with nothing after `Me`.
    public init() {}

    /// Appends a top-level `Record`.
    public mutating func record(type: String, unit: String? = nil, value: String, source: String = "Jane’s iPhone", version: String? = "13.5",
                         device: String? = nil, start: String, end: String, metadata: [(String, String)] = []) {
        body.append(Self.recordText(type: type, unit: unit, value: value, source: source, version: version, device: device,
                                    start: start, end: end, metadata: metadata, indent: " "))
    }

    /// A `Record` element's text.
    public static func recordText(type: String, unit: String?, value: String, source: String, version: String?, device: String?,
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

    /// Appends a heart-rate-variability `Record` with its `HeartRateVariabilityMetadataList`: one
    /// `InstantaneousBeatsPerMinute` per beat, with the beat's rate and local time of day
    /// (`7:48:07.51 AM`), as an Apple Watch's readings are exported.
    /// - Parameters:
    ///   - value: The SDNN in milliseconds, as written.
    ///   - source: The record's `sourceName`.
    ///   - device: The record's `device` text, already escaped for XML; nil for none.
    ///   - start: The record's `startDate` (`2020-10-03 23:59:58 -0400`).
    ///   - end: The record's `endDate`.
    ///   - beats: Each beat's instantaneous rate and local time of day.
    public mutating func heartRateVariability(value: String, source: String = "Jane’s Apple Watch", device: String? = nil, start: String,
                                              end: String, beats: [(bpm: Int, time: String)]) {
        var text = " <Record type=\"HKQuantityTypeIdentifierHeartRateVariabilitySDNN\" sourceName=\"\(Self.escape(source))\" sourceVersion=\"10.1\""
        if let device { text += " device=\"\(device)\"" }
        text += " unit=\"ms\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(Self.escape(value))\">\n"
        text += "  <HeartRateVariabilityMetadataList>\n"
        for beat in beats { text += "   <InstantaneousBeatsPerMinute bpm=\"\(beat.bpm)\" time=\"\(Self.escape(beat.time))\"/>\n" }
        text += "  </HeartRateVariabilityMetadataList>\n </Record>"
        body.append(text)
    }

    /// Appends text as it is.
    public mutating func raw(_ text: String) { body.append(text) }

    /// The document: DOCTYPE, HealthData, ExportDate, Me, then the body.
    public func document(me: String = """
        <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" \
        HKCharacteristicTypeIdentifierBloodType="HKBloodTypeABNegative" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" \
        HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
        """) -> String {
        Self.doctype + "<HealthData locale=\"en_US\">\n <ExportDate value=\"2021-01-01 12:00:00 +0100\"/>\n " + me + "\n"
            + body.joined(separator: "\n") + "\n</HealthData>\n"
    }

    /// The blood pressure members of ``full()``'s correlation, which Apple also writes as top-level records.
    static func pressureMember(_ type: String, _ value: String, indent: String) -> String {
        recordText(type: type, unit: "mmHg", value: value, source: "Omron", version: "2.1", device: nil,
                   start: "2020-10-03 08:00:00 -0400", end: "2020-10-03 08:00:00 -0400", metadata: [], indent: indent)
    }

    /// The clinical record file ``full()`` refers to, and its resource (FHIR R4).
    public static let clinicalRecord = (name: "Observation-7C1A.json", json: """
        {"resourceType":"Observation","id":"7C1A","status":"final",        \
        "category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],        \
        "code":{"coding":[{"system":"http://loinc.org","code":"2345-7","display":"Glucose"}],"text":"Glucose"},        \
        "effectiveDateTime":"2020-09-30T08:00:00Z","valueQuantity":{"value":96,"unit":"mg/dL","system":"http://unitsofmeasure.org","code":"mg/dL"}}
        """)

    /// An export with every element kind the importer reads, and some it does not: records of
    /// each kind, a blood pressure correlation (its members also written as top-level records,
    /// as Apple writes them), a workout with events, statistics and a route, an activity
    /// summary, and a clinical record reference.
    public static func full() -> AppleHealthExportGenerator {
        var export = AppleHealthExportGenerator()
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
        export.raw(pressureMember("HKQuantityTypeIdentifierBloodPressureSystolic", "121", indent: " "))
        export.raw(pressureMember("HKQuantityTypeIdentifierBloodPressureDiastolic", "79", indent: " "))
        export.raw("""
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="2.1" creationDate="2020-10-03 08:00:00 -0400" \
            startDate="2020-10-03 08:00:00 -0400" endDate="2020-10-03 08:00:00 -0400">
            \(pressureMember("HKQuantityTypeIdentifierBloodPressureSystolic", "121", indent: "  "))
            \(pressureMember("HKQuantityTypeIdentifierBloodPressureDiastolic", "79", indent: "  "))
             </Correlation>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" sourceName="Jane’s Apple Watch" \
            sourceVersion="7.0" device="\(watch)" creationDate="2020-10-04 07:31:00 +0100" startDate="2020-10-04 07:00:00 +0100" \
            endDate="2020-10-04 07:31:00 +0100">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <MetadataEntry key="HKWeatherTemperature" value="61 degF"/>
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2020-10-04 07:10:00 +0100" duration="0.5" durationUnit="min"/>
              <WorkoutEvent type="HKWorkoutEventTypeResume" date="2020-10-04 07:10:30 +0100"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2020-10-04 07:00:00 +0100" endDate="2020-10-04 07:31:00 +0100" \
            sum="312.5" unit="kcal"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2020-10-04 07:00:00 +0100" \
            endDate="2020-10-04 07:31:00 +0100" sum="5.2" unit="km"/>
              <WorkoutRoute sourceName="Jane’s Apple Watch" sourceVersion="7.0" creationDate="2020-10-04 07:31:00 +0100" \
            startDate="2020-10-04 07:00:00 +0100" endDate="2020-10-04 07:31:00 +0100">
               <FileReference path="/workout-routes/route_2020-10-04_7.31am.gpx"/>
              </WorkoutRoute>
             </Workout>
             <ActivitySummary dateComponents="2020-10-04" activeEnergyBurned="400" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="Cal" appleMoveTime="0" \
            appleMoveTimeGoal="0" appleExerciseTime="31" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>
             <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="7C1A" sourceName="Mercy Hospital" \
            sourceURL="https://fhir.mercy.example/r4/Observation/7C1A" fhirVersion="4.0.1" receivedDate="2020-10-05 10:00:00 +0100" \
            resourceFilePath="/clinical-records/\(clinicalRecord.name)"/>
            """)
        return export
    }

    // MARK: Routes

    /// One track point of a generated GPX route.
    public struct RoutePoint: Sendable {
        /// Latitude and longitude in degrees.
        public var latitude: Double, longitude: Double
        /// Elevation in meters.
        public var elevation: Double
        /// Seconds since 1970.
        public var time: Int
        /// Speed in m/s, course in degrees, horizontal and vertical accuracy in meters (Apple's extensions).
        public var speed: Double, course: Double, horizontalAccuracy: Double, verticalAccuracy: Double

        /// Creates a point.
        public init(latitude: Double, longitude: Double, elevation: Double, time: Int, speed: Double, course: Double,
                    horizontalAccuracy: Double, verticalAccuracy: Double) {
            self.latitude = latitude
            self.longitude = longitude
            self.elevation = elevation
            self.time = time
            self.speed = speed
            self.course = course
            self.horizontalAccuracy = horizontalAccuracy
            self.verticalAccuracy = verticalAccuracy
        }
    }

    /// `count` points one second apart from `start` (seconds since 1970), heading north-east.
    public static func routePoints(count: Int, start: Int) -> [RoutePoint] {
        (0..<count).map { (index: Int) -> RoutePoint in
            let step = Double(index)
            let latitude: Double = 47.37 + step * 2e-5
            let longitude: Double = 8.54 + step * 1e-5
            let elevation: Double = 408 + Double(index % 20) / 4
            let speed: Double = 2.75 + Double(index % 8) / 8
            return RoutePoint(latitude: latitude, longitude: longitude, elevation: elevation, time: start + index, speed: speed,
                              course: 27.5, horizontalAccuracy: 3.5, verticalAccuracy: 2.25)
        }
    }

    /// A GPX file as the Health app writes a workout route (`workout-routes/route_….gpx`).
    public static func gpx(_ points: [RoutePoint]) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1"             \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
             <metadata>
              <time>2020-10-04T06:31:00Z</time>
             </metadata>
             <trk>
              <name>Route 2020-10-04 7:31am</name>
              <trkseg>

            """
        for point in points {
            text += "   <trkpt lon=\"\(point.longitude)\" lat=\"\(point.latitude)\"><ele>\(point.elevation)</ele>"
            text += "<time>\(isoDate(point.time))</time><extensions><speed>\(point.speed)</speed><course>\(point.course)</course>"
            text += "<hAcc>\(point.horizontalAccuracy)</hAcc><vAcc>\(point.verticalAccuracy)</vAcc></extensions></trkpt>\n"
        }
        return text + "  </trkseg>\n </trk>\n</gpx>\n"
    }

    /// `seconds` since 1970 as GPX writes times (UTC, `Z`).
    public static func isoDate(_ seconds: Int) -> String {
        var bytes: [UInt8] = []
        ISODateText.append(secondsSince1970: seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The route of ``full()``'s workout: its file name under `workout-routes/` and 120 points
    /// from the workout's start (2020-10-04 07:00:00 +0100).
    public static let fullRoute = (name: "route_2020-10-04_7.31am.gpx", points: routePoints(count: 120, start: 1_601_791_200))

    // MARK: Archives

    /// Writes an export.zip as the Health app does: `apple_health_export/export.xml` and the
    /// other files under `apple_health_export/` (`files` paths are relative to it, unless they
    /// start with `/`, which writes them as given, for hostile archives).
    public static func writeZip(to url: URL, exportXML: Data, files: [(path: String, bytes: Data)] = [],
                                compression: CompressionMethod = .deflate) throws {
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        var entries = [(path: "apple_health_export/export.xml", bytes: exportXML)]
        for file in files {
            entries.append((file.path.hasPrefix("/") ? String(file.path.dropFirst()) : "apple_health_export/" + file.path, file.bytes))
        }
        for entry in entries {
            let bytes = entry.bytes
            try archive.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: compression) {
                position, size in
                let start = Int(position)
                return bytes.subdata(in: start..<min(bytes.count, start + size))
            }
        }
    }

    // MARK: Large exports

    /// One record of ``AppleHealthExportGenerator/writeLargeExport(records:to:)``: the same values the importer should store.
    public struct LargeRecord: Sendable {
        /// `HKQuantityTypeIdentifierHeartRate` or `HKQuantityTypeIdentifierStepCount`.
        public var type: String
        /// `count/min` or `count`.
        public var unit: String
        /// The value.
        public var value: Double
        /// Seconds since 1970 of the start (the end is 60 s later).
        public var start: Int
        /// The source's name.
        public var source: String
    }

    /// The `index`th record of a large export: heart rates and step counts a minute apart from
    /// 2020-01-01, from two sources.
    public static func largeRecord(_ index: Int) -> LargeRecord {
        let start = 1_577_836_800 + index * 60
        if index % 2 == 0 {
            return LargeRecord(type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: Double(55 + index % 60), start: start,
                               source: "Jane’s Apple Watch")
        }
        return LargeRecord(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: Double(index % 500), start: start,
                           source: "Jane’s iPhone")
    }

    /// `seconds` since 1970 as the export writes dates, at +0100.
    public static func exportDate(_ seconds: Int) -> String {
        let local = (seconds + 3600).quotientAndRemainder(dividingBy: 86_400)
        let date = CivilCalendar.civilDate(daysSinceEpoch: local.quotient)
        let time = local.remainder
        func two(_ value: Int) -> String { CivilCalendar.padded(value, width: 2) }
        return "\(date.year)-\(two(date.month))-\(two(date.day)) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) +0100"
    }

    /// Writes an export.xml of `records` records (``AppleHealthExportGenerator/largeRecord(_:)``) to `url`, a chunk at a time.
    public static func writeLargeExport(records: Int, to url: URL) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = AppleHealthExportGenerator().document()
        chunk.removeLast("</HealthData>\n".count)
        for index in 0..<records {
            let record = largeRecord(index)
            chunk += recordText(type: record.type, unit: record.unit, value: String(Int(record.value)), source: record.source,
                                version: "14.2", device: index % 2 == 0 ? watch : nil, start: exportDate(record.start),
                                end: exportDate(record.start + 60), metadata: [], indent: " ")
            chunk += "\n"
            if chunk.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        chunk += "</HealthData>\n"
        try handle.write(contentsOf: Data(chunk.utf8))
    }
}
