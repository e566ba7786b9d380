import CommonSupport
import Foundation
import ZIPFoundation

/// A person's export as the Health app writes it, at any length: an iPhone and an Apple Watch
/// (overlapping step counts and distances from both, energy, heart rates, flights, exercise
/// minutes, stand hours, sleep stages, heart rate variability with its beats, resting and
/// walking heart rates), a smart scale's weekly body mass and blood pressure readings (each a
/// correlation whose members are also top-level records), about one outdoor workout every two
/// days with its statistics, events, metadata and a GPX route of about 3,000 points, and the
/// day's activity summary. 730 days hold about 1.8 million records and 1.1 million route
/// points, the size of the two-year export of issue 36. Deterministic: the same days write the
/// same bytes. Written a chunk at a time, so memory stays small whatever the length.
extension AppleHealthExportGenerator {
    /// What ``writePersonExport(days:to:routes:)`` wrote.
    public struct PersonExportSummary: Sendable, Equatable {
        /// Top-level `Record` elements by type identifier (the blood pressure members included,
        /// which are also written inside their correlations).
        public var records: [String: Int] = [:]
        /// Blood pressure correlations (two members each).
        public var correlations = 0
        /// Heart rate variability records with a `HeartRateVariabilityMetadataList`.
        public var heartbeatLists = 0
        /// Workouts, each with one route.
        public var workouts = 0
        /// Each route's points, by its file name under `workout-routes/`.
        public var routePoints: [String: Int] = [:]
        /// `ActivitySummary` elements (one a day).
        public var activitySummaries = 0
        /// The size of export.xml in bytes.
        public var xmlBytes = 0

        /// All top-level `Record` elements.
        public var recordCount: Int { records.values.reduce(0, +) }
        /// All route points.
        public var routePointCount: Int { routePoints.values.reduce(0, +) }
    }

    /// The first day of a person's export: 2023-01-01 (Europe/Zurich).
    static let personFirstDay = CivilCalendar.daysSinceEpoch(year: 2023, month: 1, day: 1)

    /// Writes a person's export of `days` days from 2023-01-01 (see the extension's summary):
    /// export.xml to `xml` and one GPX file per workout into the folder `routes` (created when
    /// missing), as an unpacked export holds them (`workout-routes/`).
    /// - Parameters:
    ///   - days: The number of days (730: about the two-year export of issue 36).
    ///   - xml: Where to write export.xml.
    ///   - routes: The folder for the GPX files.
    /// - Returns: What was written, by type.
    @discardableResult
    public static func writePersonExport(days: Int, to xml: URL, routes: URL) throws -> PersonExportSummary {
        try FileManager.default.createDirectory(at: routes, withIntermediateDirectories: true)
        var summary = PersonExportSummary()
        var out = try TextSink(xml)
        let exportDate = personDate((personFirstDay + max(days, 0)) * 86_400 + 9 * 3_600 - 3_600, offset: 3_600)
        try out.write(doctype + "<HealthData locale=\"en_US\">\n <ExportDate value=\"\(exportDate)\"/>\n"
            + " <Me HKCharacteristicTypeIdentifierDateOfBirth=\"1986-05-14\" "
            + "HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\" HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeNotSet\" "
            + "HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" "
            + "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"/>\n")
        for kind in PersonRecordKind.allCases {
            for day in 0..<max(days, 0) {
                let written = try PersonDay(day).records(kind, into: &out)
                summary.records[kind.type, default: 0] += written
                if kind == .heartRateVariability { summary.heartbeatLists += written }
            }
        }
        summary.records = summary.records.filter { $0.value > 0 }
        for day in 0..<max(days, 0) where PersonDay(day).hasPressure {
            try PersonDay(day).pressureCorrelation(into: &out)
            summary.correlations += 1
        }
        for day in 0..<max(days, 0) {
            guard let workout = PersonDay(day).workout else { continue }
            try PersonDay(day).workoutElement(workout, into: &out)
            try writeRoute(workout, day: PersonDay(day), to: routes.appendingPathComponent(workout.fileName))
            summary.workouts += 1
            summary.routePoints[workout.fileName] = workout.points
        }
        for day in 0..<max(days, 0) {
            try PersonDay(day).activitySummary(into: &out)
            summary.activitySummaries += 1
        }
        try out.write("</HealthData>\n")
        summary.xmlBytes = try out.close()
        return summary
    }

    /// Writes an export.zip as the Health app does from an unpacked export: `xml` as
    /// `apple_health_export/export.xml` and every file of the folder `routes` under
    /// `apple_health_export/workout-routes/`, each read from disk a piece at a time.
    /// - Parameters:
    ///   - url: The archive to write (replaced).
    ///   - xml: The export.xml file.
    ///   - routes: The folder of GPX files, or nil for none.
    public static func writeZip(to url: URL, exportXMLFile xml: URL, routes: URL?) throws {
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        var entries = [(path: "apple_health_export/export.xml", file: xml)]
        if let routes {
            let names = try FileManager.default.contentsOfDirectory(atPath: routes.path).filter { $0.hasSuffix(".gpx") }.sorted()
            entries += names.map { ("apple_health_export/workout-routes/" + $0, routes.appendingPathComponent($0)) }
        }
        for entry in entries {
            let handle = try FileHandle(forReadingFrom: entry.file)
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            try archive.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate) { position, length in
                try handle.seek(toOffset: UInt64(position))
                return try handle.read(upToCount: length) ?? Data()
            }
        }
    }

    /// `seconds` since 1970 as the export writes dates, at `offset` seconds east of UTC.
    static func personDate(_ seconds: Int, offset: Int) -> String {
        let local = (seconds + offset).quotientAndRemainder(dividingBy: 86_400)
        let date = CivilCalendar.civilDate(daysSinceEpoch: local.quotient)
        let time = local.remainder
        let sign = offset < 0 ? "-" : "+"
        return "\(date.year)-\(two(date.month))-\(two(date.day)) \(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60)) "
            + "\(sign)\(two(abs(offset) / 3_600))\(two(abs(offset) / 60 % 60))"
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `value` / 10^`digits` with exactly `digits` decimals (`fixed(72_345, 3)` is `72.345`).
    static func fixed(_ value: Int, _ digits: Int) -> String {
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let parts = abs(value).quotientAndRemainder(dividingBy: scale)
        var fraction = String(parts.remainder)
        while fraction.count < digits { fraction = "0" + fraction }
        return (value < 0 ? "-" : "") + "\(parts.quotient)" + (digits > 0 ? "." + fraction : "")
    }

    /// A deterministic pseudo-random number from `values` (SplitMix64 of their mix).
    static func noise(_ values: Int...) -> Int {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for value in values {
            state = (state ^ UInt64(bitPattern: Int64(value))) &* 0xBF58_476D_1CE4_E5B9
            state ^= state >> 31
            state = state &* 0x94D0_49BB_1331_11EB
            state ^= state >> 29
        }
        return Int(state >> 2)
    }

    /// Writes the GPX file of `workout`: one point a second on a loop around Zürich, at the
    /// workout's pace, with Apple's speed, course and accuracy extensions.
    static func writeRoute(_ workout: PersonWorkout, day: PersonDay, to url: URL) throws {
        var out = try TextSink(url)
        try out.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <metadata>
              <time>\(isoDate(workout.start + workout.points))</time>
             </metadata>
             <trk>
              <name>Route \(workout.routeLabel)</name>
              <trkseg>

            """)
        let radius = 600.0 + Double(noise(day.index, 41) % 900)
        let centerLatitude = 47.3769 + Double(noise(day.index, 42) % 200) / 10_000
        let centerLongitude = 8.5417 + Double(noise(day.index, 43) % 200) / 10_000
        var angle = Double(noise(day.index, 44) % 628) / 100
        var elevation = 408.0
        for index in 0..<workout.points {
            // GPS jitter: speed, course, position, elevation and accuracies vary from point to point.
            let jitter = noise(day.index, 45, index)
            let speed = workout.speed * (0.92 + 0.16 * sin(Double(index) / 97)) + Double(jitter % 40_000) / 1e6
            angle += speed / radius
            let north = radius * sin(angle) * (1 + 0.15 * sin(angle * 3))
            let east = radius * cos(angle)
            let latitude = centerLatitude + north / 111_320 + Double(jitter / 40_000 % 30) / 1e7
            let longitude = centerLongitude + east / 75_000 + Double(jitter / 1_200_000 % 30) / 1e7
            elevation += sin(Double(index) / 151) * 0.08 + Double(jitter / 36_000_000 % 2_000 - 1_000) / 1e5
            var course = (450 - angle * 180 / .pi + Double(jitter / 72_000_000_000 % 1_000) / 1_000).truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
            let horizontal = 1_800 + (index / 60 % 7) * 350 + jitter / 72_000_000_000_000 % 400
            try out.write("   <trkpt lon=\"\(fixed(Int((longitude * 1e6).rounded()), 6))\" lat=\"\(fixed(Int((latitude * 1e6).rounded()), 6))\">"
                + "<ele>\(fixed(Int((elevation * 1e6).rounded()), 6))</ele><time>\(isoDate(workout.start + index))</time>"
                + "<extensions><speed>\(fixed(Int((speed * 1e6).rounded()), 6))</speed><course>\(fixed(Int((course * 1e6).rounded()), 6))</course>"
                + "<hAcc>\(fixed(horizontal * 1_000, 6))</hAcc><vAcc>\(fixed(horizontal * 600, 6))</vAcc></extensions></trkpt>\n")
        }
        try out.write("  </trkseg>\n </trk>\n</gpx>\n")
        _ = try out.close()
    }
}

/// Text written to a file a megabyte at a time.
struct TextSink {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var written = 0

    init(_ url: URL) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
        buffer.reserveCapacity(1 << 21)
    }

    mutating func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { try flush() }
    }

    private mutating func flush() throws {
        try handle.write(contentsOf: buffer)
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is left and closes the file; the bytes written in all.
    mutating func close() throws -> Int {
        try flush()
        try handle.close()
        return written
    }
}

/// The record types of a person's export, in the order the Health app writes them.
enum PersonRecordKind: CaseIterable {
    case bodyMass, heartRate, systolic, diastolic, stepCount, distance, basalEnergy, activeEnergy, flights, exerciseTime
    case restingHeartRate, walkingHeartRate, heartRateVariability, sleep, standHour

    var type: String {
        switch self {
        case .bodyMass: "HKQuantityTypeIdentifierBodyMass"
        case .heartRate: "HKQuantityTypeIdentifierHeartRate"
        case .systolic: "HKQuantityTypeIdentifierBloodPressureSystolic"
        case .diastolic: "HKQuantityTypeIdentifierBloodPressureDiastolic"
        case .stepCount: "HKQuantityTypeIdentifierStepCount"
        case .distance: "HKQuantityTypeIdentifierDistanceWalkingRunning"
        case .basalEnergy: "HKQuantityTypeIdentifierBasalEnergyBurned"
        case .activeEnergy: "HKQuantityTypeIdentifierActiveEnergyBurned"
        case .flights: "HKQuantityTypeIdentifierFlightsClimbed"
        case .exerciseTime: "HKQuantityTypeIdentifierAppleExerciseTime"
        case .restingHeartRate: "HKQuantityTypeIdentifierRestingHeartRate"
        case .walkingHeartRate: "HKQuantityTypeIdentifierWalkingHeartRateAverage"
        case .heartRateVariability: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        case .sleep: "HKCategoryTypeIdentifierSleepAnalysis"
        case .standHour: "HKCategoryTypeIdentifierAppleStandHour"
        }
    }
}

/// A workout of a person's export.
struct PersonWorkout {
    /// 0 running, 1 walking, 2 cycling.
    var kind: Int
    /// Seconds since 1970.
    var start: Int
    /// Route points, one a second: also the duration in seconds.
    var points: Int
    /// Meters a second.
    var speed: Double
    /// The GPX file's name (`route_2023-01-02_7.31am.gpx`) and its track's name (`2023-01-02 7:31am`).
    var fileName: String, routeLabel: String
}

/// A source of a person's export: its name, version and device text (escaped).
struct PersonSource {
    var name: String, version: String, device: String?
}

/// One day of a person's export (day 0 is 2023-01-01): what each record type holds that day.
struct PersonDay {
    typealias Generator = AppleHealthExportGenerator
    let index: Int
    /// UTC seconds of the day's local midnight, and the day's offset (Europe/Zurich).
    let midnight: Int, offset: Int

    init(_ index: Int) {
        self.index = index
        let day = Generator.personFirstDay + index
        let year = CivilCalendar.civilDate(daysSinceEpoch: day).year
        func lastSunday(_ month: Int) -> Int {
            let last = CivilCalendar.daysSinceEpoch(year: year, month: month, day: 31)
            return last - (last + 4) % 7
        }
        offset = day >= lastSunday(3) && day < lastSunday(10) ? 7_200 : 3_600
        midnight = day * 86_400 - offset
    }

    static let phoneVersions = ["16.2", "16.3.1", "16.4.1", "16.5", "16.6", "17.0.3", "17.1.2", "17.2.1", "17.3", "17.4.1", "17.5.1", "17.6", "18.0.1",
                                "18.1.1", "18.2"]
    static let watchVersions = ["9.2", "9.3.1", "9.4", "9.5.2", "9.6", "10.0.2", "10.1.1", "10.2", "10.3", "10.4", "10.5", "10.6", "11.0.1", "11.1",
                                "11.2"]

    /// The software release of the day: a new one about every seven weeks.
    private var release: Int { min(index / 50, Self.phoneVersions.count - 1) }

    private func deviceText(name: String, model: String, hardware: String, software: String, salt: Int) -> String {
        // The object's address changes between records in real exports: one a day here.
        let address = String(0x2_8000_0000 + Generator.noise(index, salt) % 0x0FFF_FFFF0 & ~0xF, radix: 16)
        return "&lt;&lt;HKDevice: 0x\(address)&gt;, name:\(name), manufacturer:Apple Inc., model:\(model), hardware:\(hardware), software:\(software)&gt;"
    }

    var phone: PersonSource {
        let version = Self.phoneVersions[release]
        return PersonSource(name: "Jane’s iPhone", version: version,
                            device: deviceText(name: "iPhone", model: "iPhone", hardware: "iPhone14,5", software: version, salt: 1))
    }

    /// The watch: a Series 6 for the first 400 days, then a Series 8.
    var watch: PersonSource {
        let version = Self.watchVersions[release]
        return PersonSource(name: "Jane’s Apple Watch", version: version,
                            device: deviceText(name: "Apple Watch", model: "Watch", hardware: index < 400 ? "Watch6,2" : "Watch7,4",
                                               software: version, salt: 2))
    }

    var scale: PersonSource { PersonSource(name: "Health Mate", version: index < 365 ? "6.3.0" : "6.5.1", device: nil) }

    func date(_ seconds: Int) -> String { Generator.personDate(seconds, offset: offset) }

    func noise(_ values: Int...) -> Int {
        values.reduce(Generator.noise(index)) { Generator.noise($0, $1) }
    }

    /// The day's workout: about one day in two (372 in 730 days), morning or evening.
    var workout: PersonWorkout? {
        guard (index + 1) * 372 / 730 > index * 372 / 730 else { return nil }
        let kind = [0, 0, 0, 0, 0, 1, 1, 1, 2, 2][noise(90) % 10]
        let start = midnight + (index % 4 < 2 ? 7 * 3_600 : 18 * 3_600 + 900) + noise(91) % 1_800
        let points = 2_400 + noise(92) % 1_201
        let end = start + points
        let local = (end + offset) % 86_400
        let hour = local / 3_600 % 12 == 0 ? 12 : local / 3_600 % 12
        let minute = Generator.two(local / 60 % 60)
        let suffix = local < 12 * 3_600 ? "am" : "pm"
        let day = String(date(end).prefix(10))
        return PersonWorkout(kind: kind, start: start, points: points, speed: [3.05, 1.45, 6.2][kind],
                             fileName: "route_\(day)_\(hour).\(minute)\(suffix).gpx", routeLabel: "\(day) \(hour):\(minute)\(suffix)")
    }

    /// Whether `seconds` falls in the day's workout.
    func inWorkout(_ seconds: Int) -> Bool {
        guard let workout else { return false }
        return seconds >= workout.start && seconds < workout.start + workout.points
    }

    var hasPressure: Bool { index % 3 == 1 }

    /// A `Record` element.
    func record(_ kind: PersonRecordKind, unit: String?, value: String, source: PersonSource, start: Int, end: Int,
                metadata: [(String, String)] = [], children: String = "", indent: String = " ") -> String {
        var text = "\(indent)<Record type=\"\(kind.type)\" sourceName=\"\(source.name)\" sourceVersion=\"\(source.version)\""
        if let device = source.device { text += " device=\"\(device)\"" }
        if let unit { text += " unit=\"\(unit)\"" }
        let created = end + 20 + noise(start, 7) % 300
        text += " creationDate=\"\(date(created))\" startDate=\"\(date(start))\" endDate=\"\(date(end))\" value=\"\(value)\""
        if metadata.isEmpty && children.isEmpty { return text + "/>\n" }
        text += ">\n"
        for (key, value) in metadata { text += "\(indent)  <MetadataEntry key=\"\(key)\" value=\"\(value)\"/>\n" }
        return text + children + "\(indent)</Record>\n"
    }

    /// Writes the day's records of `kind`; how many.
    func records(_ kind: PersonRecordKind, into out: inout TextSink) throws -> Int {
        var count = 0
        func add(_ text: String) throws {
            try out.write(text)
            count += 1
        }
        switch kind {
        case .bodyMass:
            guard index % 7 == 0 else { return 0 }
            let at = midnight + 7 * 3_600 + noise(10) % 1_200
            let grams = 71_000 + (index % 90) * 12 + noise(11) % 900
            try add(record(kind, unit: "kg", value: Generator.fixed(grams / 100, 1), source: scale, start: at, end: at))
        case .heartRate:
            for slot in 0..<288 {
                let at = midnight + slot * 300 + noise(20, slot) % 240
                guard !inWorkout(at) else { continue }
                let asleep = slot < 78
                let bpm = asleep ? 50 + noise(21, slot) % 10 : 62 + noise(21, slot) % 24
                try add(record(kind, unit: "count/min", value: "\(bpm)", source: watch, start: at, end: at,
                               metadata: [("HKMetadataKeyHeartRateMotionContext", asleep || noise(22, slot) % 5 > 0 ? "1" : "0")]))
            }
            if let workout {
                for tick in stride(from: 0, to: workout.points, by: 5) {
                    let bpm = 118 + min(tick / 30, 30) + noise(23, tick) % 14
                    try add(record(kind, unit: "count/min", value: "\(bpm)", source: watch, start: workout.start + tick, end: workout.start + tick,
                                   metadata: [("HKMetadataKeyHeartRateMotionContext", "2")]))
                }
            }
        case .systolic, .diastolic:
            guard hasPressure else { return 0 }
            try add(pressureMember(kind, indent: " "))
        case .stepCount, .distance:
            count += try walking(kind, into: &out)
        case .basalEnergy:
            for slot in 0..<288 {
                let start = midnight + slot * 300
                try add(record(kind, unit: "kcal", value: Generator.fixed(5_250 + noise(30, slot) % 1_250, 3), source: watch, start: start,
                               end: start + 300))
            }
        case .activeEnergy:
            for minute in 390..<1_350 where noise(31, minute) % 100 < 88 {
                let start = midnight + minute * 60
                guard !inWorkout(start) else { continue }
                try add(record(kind, unit: "kcal", value: Generator.fixed(40 + noise(32, minute) % 1_900, 3), source: watch, start: start,
                               end: start + 60))
            }
            if let workout {
                for tick in stride(from: 0, to: workout.points, by: 10) {
                    let start = workout.start + tick
                    try add(record(kind, unit: "kcal", value: Generator.fixed(1_400 + noise(33, tick) % 900, 3), source: watch, start: start,
                                   end: start + 10))
                }
            }
        case .flights:
            for (source, slots, salt) in [(phone, 14, 40), (watch, 10, 41)] {
                for slot in 0..<slots {
                    let start = midnight + 7 * 3_600 + slot * (15 * 3_600 / slots) + noise(salt, slot) % 1_800
                    try add(record(kind, unit: "count", value: "\(1 + noise(salt + 10, slot) % 4)", source: source, start: start,
                                   end: start + 20 + noise(salt + 20, slot) % 100))
                }
            }
        case .exerciseTime:
            for minute in 420..<1_320 where noise(50, minute) % 36 == 0 || inWorkout(midnight + minute * 60) {
                let start = midnight + minute * 60
                try add(record(kind, unit: "min", value: "1", source: watch, start: start, end: start + 60))
            }
        case .restingHeartRate:
            try add(record(kind, unit: "count/min", value: "\(54 + noise(60) % 8)", source: watch, start: midnight + 120 + noise(61) % 600,
                           end: midnight + 86_000 + noise(62) % 300))
        case .walkingHeartRate:
            try add(record(kind, unit: "count/min", value: "\(92 + noise(63) % 14)", source: watch, start: midnight + 7 * 3_600 + noise(64) % 3_600,
                           end: midnight + 21 * 3_600 + noise(65) % 3_600))
        case .heartRateVariability:
            for (slot, hour) in [1, 4, 8, 13, 19].enumerated() {
                let start = midnight + hour * 3_600 + noise(70, slot) % 3_000
                try add(variability(start: start, slot: slot))
            }
        case .sleep:
            count += try sleep(into: &out)
        case .standHour:
            for hour in 7..<23 {
                let start = midnight + hour * 3_600
                let stood = noise(80, hour) % 10 < 7 ? "HKCategoryValueAppleStandHourStood" : "HKCategoryValueAppleStandHourIdle"
                try add(record(kind, unit: nil, value: stood, source: watch, start: start, end: start + 3_600))
            }
        }
        return count
    }

    /// Step counts or distances of the phone (in a pocket from 7:00 to 23:00) and of the
    /// watch (6:30 to 22:30), overlapping as the Health app exports both; the same intervals
    /// for both types.
    private func walking(_ kind: PersonRecordKind, into out: inout TextSink) throws -> Int {
        var count = 0
        for (source, first, slots, length, salt) in [(phone, 7 * 3_600, 112, 510, 1), (watch, 6 * 3_600 + 1_800, 160, 360, 2)] {
            for slot in 0..<slots where noise(100 + salt, slot) % 6 > 0 {
                let start = midnight + first + slot * length + noise(110 + salt, slot) % 60
                let end = start + 60 + noise(120 + salt, slot) % (length - 90)
                var steps = 8 + noise(130 + salt, slot) % 700
                if inWorkout(start) { steps += 400 }
                let text: String
                if kind == .stepCount {
                    text = record(kind, unit: "count", value: "\(steps)", source: source, start: start, end: end)
                } else {
                    text = record(kind, unit: "km", value: Generator.fixed(steps * 74 + noise(140 + salt, slot) % 1_000, 5), source: source,
                                  start: start, end: end)
                }
                try out.write(text)
                count += 1
            }
        }
        return count
    }

    /// The night from this day's evening: the phone's time in bed and the watch's stages.
    private func sleep(into out: inout TextSink) throws -> Int {
        let bed = midnight + 22 * 3_600 + 2_700 + noise(150) % 2_700
        var stages: [(String, Int)] = []
        var at = bed + 600 + noise(151) % 900
        let cycle = ["AsleepCore", "AsleepDeep", "AsleepCore", "AsleepREM", "Awake", "AsleepCore", "AsleepDeep", "AsleepCore", "AsleepREM",
                     "AsleepCore", "AsleepREM", "Awake"]
        for (slot, stage) in cycle.enumerated() {
            let length = stage == "Awake" ? 60 + noise(152, slot) % 300 : 1_200 + noise(152, slot) % 1_800
            stages.append((stage, at))
            at += length
        }
        var count = 1
        try out.write(record(.sleep, unit: nil, value: "HKCategoryValueSleepAnalysisInBed", source: phone, start: bed, end: at + 300))
        for (slot, stage) in stages.enumerated() {
            let end = slot + 1 < stages.count ? stages[slot + 1].1 : at
            try out.write(record(.sleep, unit: nil, value: "HKCategoryValueSleepAnalysis\(stage.0)", source: watch, start: stage.1, end: end,
                                 metadata: [("HKTimeZone", "Europe/Zurich")]))
            count += 1
        }
        return count
    }

    /// A heart rate variability record with its beats, a minute of them.
    private func variability(start: Int, slot: Int) -> String {
        var list = "  <HeartRateVariabilityMetadataList>\n"
        var hundredths = ((start + offset) % 86_400) * 100
        let first = hundredths
        var beat = 0
        while hundredths - first < 5_800 {
            let bpm = 58 + noise(71, slot, beat) % 14
            let seconds = hundredths / 100
            let hour = seconds / 3_600 % 12 == 0 ? 12 : seconds / 3_600 % 12
            let time = "\(hour):\(Generator.two(seconds / 60 % 60)):\(Generator.two(seconds % 60)).\(Generator.two(hundredths % 100)) "
                + (seconds < 12 * 3_600 ? "AM" : "PM")
            list += "   <InstantaneousBeatsPerMinute bpm=\"\(bpm)\" time=\"\(time)\"/>\n"
            hundredths += 6_000 / bpm
            beat += 1
        }
        list += "  </HeartRateVariabilityMetadataList>\n"
        let value = Generator.fixed(220_000 + noise(72, slot) % 500_000, 4)
        return record(.heartRateVariability, unit: "ms", value: value, source: watch, start: start, end: start + 60, children: list)
    }

    /// A blood pressure reading's member, written as a top-level record and in its correlation.
    func pressureMember(_ kind: PersonRecordKind, indent: String) -> String {
        let at = midnight + 8 * 3_600 + noise(160) % 900
        let value = kind == .systolic ? 112 + noise(161) % 22 : 70 + noise(162) % 14
        return record(kind, unit: "mmHg", value: "\(value)", source: scale, start: at, end: at, indent: indent)
    }

    func pressureCorrelation(into out: inout TextSink) throws {
        let at = midnight + 8 * 3_600 + noise(160) % 900
        let created = date(at + 20 + noise(at, 7) % 300)
        try out.write(" <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"\(scale.name)\" sourceVersion=\"\(scale.version)\" "
            + "creationDate=\"\(created)\" startDate=\"\(date(at))\" endDate=\"\(date(at))\">\n"
            + pressureMember(.systolic, indent: "  ") + pressureMember(.diastolic, indent: "  ") + " </Correlation>\n")
    }

    func workoutElement(_ workout: PersonWorkout, into out: inout TextSink) throws {
        let end = workout.start + workout.points
        let type = ["HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeWalking", "HKWorkoutActivityTypeCycling"][workout.kind]
        let minutes = Generator.fixed(workout.points * 10_000 / 60, 4)
        let source = watch
        var text = " <Workout workoutActivityType=\"\(type)\" duration=\"\(minutes)\" durationUnit=\"min\" sourceName=\"\(source.name)\" "
        text += "sourceVersion=\"\(source.version)\" device=\"\(source.device ?? "")\" creationDate=\"\(date(end + 5))\" startDate=\"\(date(workout.start))\" "
        text += "endDate=\"\(date(end))\">\n"
        let metadata = [("HKIndoorWorkout", "0"), ("HKTimeZone", "Europe/Zurich"), ("HKWeatherHumidity", "\(4_000 + noise(170) % 5_000) %"),
                        ("HKWeatherTemperature", "\(Generator.fixed(320 + noise(171) % 500, 1)) degF"),
                        ("HKAverageMETs", "\(Generator.fixed([9_800, 3_900, 7_600][workout.kind] + noise(172) % 900, 3)) kcal/hr·kg"),
                        ("HKElevationAscended", "\(1_000 + noise(173) % 9_000) cm")]
        for (key, value) in metadata { text += "  <MetadataEntry key=\"\(key)\" value=\"\(value)\"/>\n" }
        let segments = workout.points / 600
        for segment in 0..<segments {
            text += "  <WorkoutEvent type=\"HKWorkoutEventTypeSegment\" date=\"\(date(workout.start + segment * 600))\" "
            text += "duration=\"10\" durationUnit=\"min\"/>\n"
        }
        let pause = workout.start + workout.points / 2
        text += "  <WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"\(date(pause))\"/>\n"
        text += "  <WorkoutEvent type=\"HKWorkoutEventTypeResume\" date=\"\(date(pause + 20 + noise(174) % 40))\"/>\n"
        let meters = Int(Double(workout.points) * workout.speed)
        let interval = "startDate=\"\(date(workout.start))\" endDate=\"\(date(end))\""
        let distanceType = workout.kind == 2 ? "HKQuantityTypeIdentifierDistanceCycling" : "HKQuantityTypeIdentifierDistanceWalkingRunning"
        text += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" \(interval) "
        text += "sum=\"\(Generator.fixed(workout.points * 200, 3))\" unit=\"kcal\"/>\n"
        text += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierBasalEnergyBurned\" \(interval) "
        text += "sum=\"\(Generator.fixed(workout.points * 22, 3))\" unit=\"kcal\"/>\n"
        text += "  <WorkoutStatistics type=\"\(distanceType)\" \(interval) sum=\"\(Generator.fixed(meters * 100, 5))\" unit=\"km\"/>\n"
        text += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" \(interval) "
        text += "average=\"\(132 + noise(175) % 20)\" minimum=\"\(96 + noise(176) % 10)\" "
        text += "maximum=\"\(160 + noise(177) % 20)\" unit=\"count/min\"/>\n"
        if workout.kind != 2 {
            text += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierStepCount\" \(interval) "
            text += "sum=\"\(workout.points * [170, 110, 0][workout.kind] / 60)\" unit=\"count\"/>\n"
        }
        text += "  <WorkoutRoute sourceName=\"\(source.name)\" sourceVersion=\"\(source.version)\" creationDate=\"\(date(end + 60))\" \(interval)>\n"
        text += "   <FileReference path=\"/workout-routes/\(workout.fileName)\"/>\n  </WorkoutRoute>\n </Workout>\n"
        try out.write(text)
    }

    func activitySummary(into out: inout TextSink) throws {
        let local = String(date(midnight + 43_200).prefix(10))
        let exercise = 20 + noise(180) % 30 + (workout.map { $0.points / 60 } ?? 0)
        try out.write(" <ActivitySummary dateComponents=\"\(local)\" activeEnergyBurned=\"\(Generator.fixed(300_000 + noise(181) % 500_000, 3))\" "
            + "activeEnergyBurnedGoal=\"600\" activeEnergyBurnedUnit=\"Cal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"\(exercise)\" "
            + "appleExerciseTimeGoal=\"30\" appleStandHours=\"\(9 + noise(182) % 7)\" appleStandHoursGoal=\"12\"/>\n")
    }
}
