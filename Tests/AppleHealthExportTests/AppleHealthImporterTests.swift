import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Apple Health export import")
struct AppleHealthImporterTests {
    static func ownerStore() -> HKHealthStore {
        HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
    }

    /// Writes `text` as export.xml in a new folder of its own.
    static func write(_ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("export.xml")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Removes the folder `write` made (and nothing else: only a folder `write` names).
    static func remove(_ url: URL) {
        let folder = url.deletingLastPathComponent()
        guard folder.lastPathComponent.hasPrefix("export-"), url.lastPathComponent == "export.xml" else { return }
        try? FileManager.default.removeItem(at: folder)
    }

    static func quantities(_ store: HKHealthStore, _ identifier: HKQuantityTypeIdentifier) async throws -> [HKQuantitySample] {
        try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(identifier))],
                                          sortDescriptors: [SortDescriptor(\.startDate)]).result(for: store)
    }

    static func activitySummaries(_ store: HKHealthStore) async throws -> [HKActivitySummary] {
        let inbox = Inbox<[HKActivitySummary]>()
        store.execute(HKActivitySummaryQuery(predicate: nil) { _, summaries, _ in inbox.append(summaries ?? []) })
        return await inbox.wait(for: 1).first ?? []
    }

    static func count(_ store: HKHealthStore) async throws -> Int {
        var total = 0
        for identifier in [HKQuantityTypeIdentifier.heartRate, .bodyMass, .stepCount] {
            total += try await quantities(store, identifier).count
        }
        for identifier in [HKCategoryTypeIdentifier.sleepAnalysis, .mindfulSession] {
            total += try await HKSampleQueryDescriptor(predicates: [.categorySample(type: HKCategoryType(identifier))],
                                                       sortDescriptors: []).result(for: store).count
        }
        total += try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store).count
        total += try await HKSampleQueryDescriptor(predicates: [.correlation(type: HKCorrelationType(.bloodPressure))],
                                                   sortDescriptors: []).result(for: store).count
        return total
    }

    @Test("Every element kind maps to the model: types, units, dates with offsets, sources, devices, metadata")
    func fullExport() async throws {
        let url = try Self.write(AppleHealthExportGenerator.full().document())
        defer { Self.remove(url) }
        let store = Self.ownerStore()
        let report = try await AppleHealthImporter().importExport(at: url, into: store)

        #expect(report.imported[HKQuantityTypeIdentifier.heartRate.rawValue] == 1)
        #expect(report.imported[HKCategoryTypeIdentifier.sleepAnalysis.rawValue] == 1)
        #expect(report.imported[HKCategoryTypeIdentifier.mindfulSession.rawValue] == 1)
        #expect(report.imported[HKCorrelationTypeIdentifier.bloodPressure.rawValue] == 1)
        #expect(report.imported[HKWorkoutTypeIdentifier] == 1)
        // The correlation's members count under their types; their top-level twins are not imported again.
        #expect(report.imported[HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue] == 1)
        #expect(report.imported[HKQuantityTypeIdentifier.bloodPressureDiastolic.rawValue] == 1)
        #expect(report.imported[HKActivitySummaryTypeIdentifier] == 1)
        #expect(report.importedCount == 10)
        #expect(report.duplicates == 2)
        #expect(report.skipped["ClinicalRecord without its resource file"] == 1)
        #expect(report.skipped["HKDataTypeSleepDurationGoal (a Health app setting, not a HealthKit sample: not stored)"] == 1)
        #expect(report.skipped["WorkoutRoute whose GPX file is missing from the export"] == 1)
        #expect(report.skipped["unsupported characteristic HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse"] == 1)
        #expect(report.characteristics == 3)

        let heart = try #require(try await Self.quantities(store, .heartRate).first)
        #expect(heart.quantity.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) == 62)
        #expect(heart.startDate == Date(timeIntervalSince1970: ISO8601DateFormatter().date(from: "2020-10-01T15:30:00Z")?.timeIntervalSince1970 ?? 0))
        #expect(heart.sourceRevision.source.name == "Jane’s Apple Watch")
        #expect(heart.sourceRevision.version == "7.0")
        #expect(heart.device?.name == "Apple Watch")
        #expect(heart.device?.manufacturer == "Apple Inc.")
        #expect(heart.device?.hardwareVersion == "Watch6,1")
        #expect(heart.device?.softwareVersion == "7.0")
        #expect(heart.metadata?["HKMetadataKeyHeartRateMotionContext"] as? Int == 1)
        let syncIdentifier = heart.metadata?[HKMetadataKeySyncIdentifier] as? String
        #expect(syncIdentifier?.hasPrefix(AppleHealthImporter.syncIdentifierPrefix) == true)

        let mass = try #require(try await Self.quantities(store, .bodyMass).first)
        #expect(abs(mass.quantity.doubleValue(for: .pound()) - 154.3) < 1e-9)
        #expect(mass.startDate == Date(timeIntervalSince1970: ISO8601DateFormatter().date(from: "2020-10-02T05:00:00Z")?.timeIntervalSince1970 ?? 0))
        #expect(mass.metadata?["Note"] as? String == "after <run> & shower")
        #expect(mass.metadata?[HKMetadataKeyWasUserEntered] as? Int == 1)
        #expect(mass.sourceRevision.version == "13.5")
        let steps = try #require(try await Self.quantities(store, .stepCount).first)
        #expect(steps.sourceRevision.version == "14.2" && steps.sourceRevision.source.name == "Jane’s iPhone")

        let sleep = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis))],
                                                      sortDescriptors: []).result(for: store)
        #expect(sleep.first?.value == HKCategoryValueSleepAnalysis.asleepCore.rawValue)
        #expect(sleep.first?.endDate.timeIntervalSince(sleep.first?.startDate ?? .distantPast) == 7200)

        let pressure = try #require(try await HKSampleQueryDescriptor(predicates: [.correlation(type: HKCorrelationType(.bloodPressure))],
                                                                      sortDescriptors: []).result(for: store).first)
        #expect(pressure.objects.count == 2)
        // Apple lists each member twice (inside the correlation and as a top-level record): stored once.
        #expect(try await Self.quantities(store, .bloodPressureSystolic).count == 1)
        #expect(try await Self.quantities(store, .bloodPressureDiastolic).count == 1)
        let systolic = pressure.objects.compactMap { $0 as? HKQuantitySample }.first { $0.quantityType == HKQuantityType(.bloodPressureSystolic) }
        #expect(systolic?.quantity.doubleValue(for: .millimeterOfMercury()) == 121)
        #expect(pressure.sourceRevision.source.name == "Omron")

        let workout = try #require(try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store).first)
        #expect(workout.workoutActivityType == .running)
        #expect(workout.duration == 30.5 * 60)
        #expect(workout.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 312.5)
        #expect(abs((workout.totalDistance?.doubleValue(for: .meter()) ?? 0) - 5_200) < 1e-6)
        #expect(workout.workoutEvents?.map(\.type) == [.pause, .resume])
        #expect(workout.workoutEvents?.first?.dateInterval.duration == 30)
        #expect(workout.startDate == Date(timeIntervalSince1970: ISO8601DateFormatter().date(from: "2020-10-04T06:00:00Z")?.timeIntervalSince1970 ?? 0))
        #expect(workout.metadata?["HKIndoorWorkout"] as? Int == 0)
        let temperature = workout.metadata?["HKWeatherTemperature"] as? HKQuantity
        #expect(temperature.map { abs($0.doubleValue(for: .degreeFahrenheit()) - 61) < 1e-9 } == true)
        #expect(workout.device?.model == "Watch")

        let summaries = try await Self.activitySummaries(store)
        #expect(summaries.count == 1)
        let summary = try #require(summaries.first)
        let day = summary.dateComponents(for: Calendar(identifier: .gregorian))
        #expect(day.year == 2020 && day.month == 10 && day.day == 4)
        #expect(summary.activeEnergyBurned.doubleValue(for: .kilocalorie()) == 400)
        #expect(summary.activeEnergyBurnedGoal.doubleValue(for: .kilocalorie()) == 500)
        #expect(summary.appleExerciseTime.doubleValue(for: .minute()) == 31)
        #expect(summary.exerciseTimeGoal?.doubleValue(for: .minute()) == 30)
        #expect(summary.appleStandHours.doubleValue(for: .count()) == 11)
        #expect(summary.standHoursGoal?.doubleValue(for: .count()) == 12)

        #expect(try store.biologicalSex().biologicalSex == .female)
        #expect(try store.bloodType().bloodType == .abNegative)
        let birth = try store.dateOfBirthComponents()
        #expect(birth.year == 1980 && birth.month == 2 && birth.day == 29)
    }

    @Test("A second run imports nothing twice, whatever the batch size")
    func rerun() async throws {
        let url = try Self.write(AppleHealthExportGenerator.full().document())
        defer { Self.remove(url) }
        let store = Self.ownerStore()
        let first = try await AppleHealthImporter(batchSize: 2).importExport(at: url, into: store)
        #expect(first.batches == 4)
        let stored = try await Self.count(store)
        #expect(stored == 7)
        let second = try await AppleHealthImporter(batchSize: 3).importExport(at: url, into: store)
        #expect(second.duplicates == 2)
        #expect(try await Self.count(store) == stored)
        #expect(try await Self.quantities(store, .bloodPressureSystolic).count == 1)
        #expect(try await Self.activitySummaries(store).count == 1)
    }

    @Test("An interrupted import resumes: batches committed before a bad element stay, the rest follows on the next run")
    func resume() async throws {
        var broken = AppleHealthExportGenerator.full()
        broken.body.insert(" <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"x\" startDate=\"yesterday\" endDate=\"today\"/>", at: 3)
        let bad = try Self.write(broken.document())
        let good = try Self.write(AppleHealthExportGenerator.full().document())
        defer { Self.remove(bad); Self.remove(good) }
        let store = Self.ownerStore()
        await #expect(throws: AppleHealthExportError.self) {
            _ = try await AppleHealthImporter(batchSize: 2).importExport(at: bad, into: store)
        }
        // Two whole batches of two, never the half-read third.
        #expect(try await Self.count(store) == 2)
        _ = try await AppleHealthImporter(batchSize: 2).importExport(at: good, into: store)
        #expect(try await Self.count(store) == 7)
    }

    @Test("A sample the store refuses (a negative workout duration, a distance too large to be finite) is left out with its reason; the rest is imported")
    func refusedSamplesAreLeftOut() async throws {
        var export = AppleHealthExportGenerator.full()
        let workout = """
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="-5" durationUnit="min" sourceName="Buggy app" \
            creationDate="2020-10-05 08:00:00 +0100" startDate="2020-10-05 08:00:00 +0100" endDate="2020-10-05 08:05:00 +0100"/>
            """
        export.body.insert(workout, at: 2)
        // 1.7e308 km is finite, but not in meters, the type's unit.
        export.body.insert(AppleHealthExportGenerator.recordText(type: "HKQuantityTypeIdentifierDistanceWalkingRunning", unit: "km",
                                                                 value: "1.7e308", source: "Buggy app", version: nil, device: nil,
                                                                 start: "2020-10-05 08:00:00 +0100", end: "2020-10-05 08:05:00 +0100",
                                                                 metadata: [], indent: " "), at: 1)
        let url = try Self.write(export.document())
        let clean = try Self.write(AppleHealthExportGenerator.full().document())
        defer { Self.remove(url); Self.remove(clean) }
        let store = Self.ownerStore()
        // Small batches: the refused samples share theirs with valid ones, which are still stored.
        let report = try await AppleHealthImporter(batchSize: 3).importExport(at: url, into: store)
        #expect(report.skipped["refused by the store: a workout's duration must be zero or more"] == 1, "\(report.skipped)")
        let refusedValues = report.skipped.filter { $0.key.hasPrefix("refused by the store: HKQuantityTypeIdentifierDistanceWalkingRunning") }
        #expect(refusedValues.values.reduce(0, +) == 1, "\(report.skipped)")
        #expect(report.imported[HKWorkoutTypeIdentifier] == 1)
        #expect(report.importedCount == 10)
        // The same samples as the export without the two bad ones.
        let reference = Self.ownerStore()
        _ = try await AppleHealthImporter(batchSize: 3).importExport(at: clean, into: reference)
        #expect(try await Self.count(store) == Self.count(reference))
        #expect(try await Self.quantities(store, .heartRate).map(\.quantity) == Self.quantities(reference, .heartRate).map(\.quantity))
    }

    @Test("Hostile and broken files: a typed error, nothing stored", arguments: [
        ("entities", AppleHealthExportError.Kind.entityDeclaration),
        ("external DTD", .entityDeclaration),
        ("huge attribute", .attributeTooLong),
        ("truncated", .malformedXML),
        ("malformed", .malformedXML),
        ("wrong root", .notAnExport),
        ("bad date", .invalidElement),
        ("undefined entity", .malformedXML),
    ])
    func hostile(name: String, kind: AppleHealthExportError.Kind) async throws {
        let full = AppleHealthExportGenerator.full().document()
        let text: String
        switch name {
        case "entities":
            text = """
                <?xml version="1.0"?>
                <!DOCTYPE HealthData [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
                <HealthData locale="en_US"><Record type="HKQuantityTypeIdentifierStepCount" sourceName="&c;" unit="count" value="1" \
                startDate="2020-10-02 09:00:00 +0200" endDate="2020-10-02 09:00:00 +0200"/></HealthData>
                """
        case "external DTD":
            text = "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData SYSTEM \"file:///etc/passwd\">\n<HealthData locale=\"en_US\"></HealthData>\n"
        case "huge attribute":
            var export = AppleHealthExportGenerator.full()
            export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "1", source: String(repeating: "x", count: 70_000),
                          start: "2020-10-02 09:00:00 +0200", end: "2020-10-02 10:00:00 +0200")
            text = export.document()
        case "truncated":
            text = String(full.prefix(full.count - 40))
        case "malformed":
            text = full.replacingOccurrences(of: "</Correlation>", with: "</Correlatio>")
        case "wrong root":
            text = "<?xml version=\"1.0\"?>\n<HealthDataX><HealthData/></HealthDataX>"
        case "bad date":
            text = full.replacingOccurrences(of: "2020-10-03 08:00:00 -0400\" endDate", with: "2020-13-03 08:00:00 -0400\" endDate")
        default:
            text = full.replacingOccurrences(of: "value=\"1200\"", with: "value=\"&nope;\"")
        }
        let url = try Self.write(text)
        defer { Self.remove(url) }
        let store = Self.ownerStore()
        do {
            _ = try await AppleHealthImporter().importExport(at: url, into: store)
            Issue.record("\(name): imported")
        } catch let error as AppleHealthExportError {
            #expect(error.kind == kind, "\(name): \(error)")
        }
        #expect(try await Self.count(store) == 0)
        #expect(try store.biologicalSex().biologicalSex == .notSet)
    }

    @Test("Random mutations of a valid export never crash: each imports or fails with a typed error")
    func fuzz() async throws {
        let original = Array(AppleHealthExportGenerator.full().document().utf8)
        var random = SplitMix64(seed: 0x5EED_A991E)
        let specials: [UInt8] = Array("<>&\"'/=![]-; \n\0".utf8)
        for _ in 0..<60 {
            var bytes = original
            for _ in 0..<random.int(1...8) {
                let index = random.below(bytes.count)
                switch random.below(4) {
                case 0: bytes[index] = specials[random.below(specials.count)]
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                default: bytes = Array(bytes.prefix(index))
                }
            }
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-\(UUID().uuidString).xml")
            try Data(bytes).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            do {
                _ = try await AppleHealthImporter().importExport(at: url, into: Self.ownerStore())
            } catch is AppleHealthExportError {
            } catch let error as HKError {
                // A mutated value the store refuses (an invalid metadata key, say).
                _ = error
            }
        }
    }
}
