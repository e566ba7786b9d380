@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Apple Health import of electrocardiograms, audiograms, vision prescriptions and settings")
struct ClinicalMeasurementsImportTests {
    static let recorded = "2020-10-04 08:12:31 +0100"

    static func export(csvFiles: [(name: String, text: String)]) throws -> (URL, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-clinical-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var export = AppleHealthExportGenerator()
        export.audiogram(start: "2020-10-05 09:00:00 +0100", end: "2020-10-05 09:10:00 +0100",
                         points: [(500, 20, 25), (1000, 30, nil), (4000, nil, 45)])
        export.visionPrescriptions(issued: "2020-09-01 10:00:00 +0100", expires: "2022-09-01 10:00:00 +0100")
        export.sleepDurationGoal(at: "2020-10-01 22:00:00 +0100")
        let url = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: url, exportXML: Data(export.document().utf8),
                                                files: csvFiles.map { (path: "electrocardiograms/" + $0.name, bytes: Data($0.text.utf8)) })
        return (folder, url)
    }

    static func samples(_ store: HKHealthStore, _ type: HKSampleType) async throws -> [HKSample] {
        try await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: [SortDescriptor(\.startDate)]).result(for: store)
    }

    @Test("An export's ECG CSV, audiogram, prescriptions and sleep goal: stored with every voltage, or reported with a reason; once")
    func importsEverything() async throws {
        let wave = AppleHealthExportGenerator.electrocardiogramWave()
        let csv = AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded, classification: "Atrial Fibrillation",
                                                                  symptoms: "Rapid, pounding, or fluttering heartbeat", values: wave)
        let (folder, url) = try Self.export(csvFiles: [(name: "ecg_2020-10-04.csv", text: csv)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AppleHealthImporterTests.ownerStore()
        let report = try await AppleHealthImporter().importExport(at: url, into: store)

        #expect(report.imported["HKDataTypeIdentifierElectrocardiogram"] == 1)
        #expect(report.imported["HKDataTypeIdentifierAudiogram"] == 1)
        #expect(report.imported[HKVisionPrescriptionTypeIdentifier] == 2)
        #expect(report.skipped["HKDataTypeSleepDurationGoal (a Health app setting, not a HealthKit sample: not stored)"] == 1)
        #expect(report.skipped["VisionPrescription attachment (its image is not in the export)"] == 1)
        #expect(!report.skipped.keys.contains { $0.contains("unsupported element") || $0.contains("electrocardiogram (not imported)") })

        let ecg = try #require(try await Self.samples(store, .electrocardiogramType()).first as? HKElectrocardiogram)
        #expect(ecg.classification == .atrialFibrillation && ecg.symptomsStatus == .present)
        #expect(ecg.numberOfVoltageMeasurements == 15_360)
        #expect(ecg.endDate.timeIntervalSince(ecg.startDate) == 30)
        #expect(ecg.device?.hardwareVersion == "Watch6,1")
        var voltages: [Double] = []
        for try await measurement in HKElectrocardiogramQueryDescriptor(ecg).results(for: store) {
            voltages.append(measurement.quantity(for: .appleWatchSimilarToLeadI)?.doubleValue(for: .voltUnit(with: .micro)) ?? .nan)
        }
        #expect(voltages.count == wave.count && zip(voltages, wave).allSatisfy { abs($0 - $1) < 1e-3 })

        let audiogram = try #require(try await Self.samples(store, .audiogramSampleType()).first as? HKAudiogramSample)
        // The typed Swift-concurrency forms HealthKit declares find the same samples.
        let typedECGs = try await HKSampleQueryDescriptor(predicates: [.electrocardiogram()], sortDescriptors: []).result(for: store)
        #expect(typedECGs.map(\.uuid) == [ecg.uuid])
        let typedAudiograms = try await HKSampleQueryDescriptor(predicates: [.audiogram()], sortDescriptors: []).result(for: store)
        #expect(typedAudiograms.map(\.uuid) == [audiogram.uuid])
        let heartbeats = try await HKSampleQueryDescriptor(predicates: [.heartbeatSeries()], sortDescriptors: []).result(for: store)
        #expect(heartbeats.isEmpty)
        #expect(audiogram.sensitivityPoints.map { $0.frequency.doubleValue(for: .hertz()) } == [500, 1000, 4000])
        #expect(audiogram.sensitivityPoints[0].tests.first { $0.side == .left }?.masked == true)
        #expect(audiogram.sensitivityPoints[2].rightEarSensitivity?.doubleValue(for: .decibelHearingLevel()) == 45)

        let prescriptions = try await Self.samples(store, .visionPrescriptionType())
        let glasses = try #require(prescriptions.compactMap { $0 as? HKGlassesPrescription }.first)
        #expect(glasses.rightEye?.cylinder?.doubleValue(for: .diopter()) == 1.25 && glasses.leftEye?.sphere.doubleValue(for: .diopter()) == -1)
        #expect(glasses.rightEye?.vertexDistance?.doubleValue(for: .meterUnit(with: .milli)) == 12)
        let contacts = try #require(prescriptions.compactMap { $0 as? HKContactsPrescription }.first)
        #expect(contacts.brand == "Acme Daily" && contacts.leftEye?.diameter?.doubleValue(for: .meterUnit(with: .milli)) == 14.2)

        // Importing the same export again stores nothing twice.
        _ = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(try await Self.samples(store, .electrocardiogramType()).count == 1)
        #expect(try await Self.samples(store, .audiogramSampleType()).count == 1)
        #expect(try await Self.samples(store, .visionPrescriptionType()).count == 2)
    }

    @Test("ECG CSVs with a missing header, a non-numeric value or a huge line are skipped with their reason; the others import")
    func oddElectrocardiograms() async throws {
        let good = AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded, values: [1, 2, 3])
        let noHeader = "12.5\n13.25\n"
        let noDate = AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded, values: [1], header: ["Recorded Date": nil])
        let word = AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded, values: [1]) + "abc\n"
        let huge = AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded, values: [1]) + String(repeating: "9", count: 100_000) + "\n"
        let (folder, url) = try Self.export(csvFiles: [("a.csv", good), ("b.csv", noHeader), ("c.csv", noDate), ("d.csv", word), ("e.csv", huge)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AppleHealthImporterTests.ownerStore()
        let report = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(report.imported["HKDataTypeIdentifierElectrocardiogram"] == 1)
        let reasons = report.skipped.filter { $0.key.hasPrefix("electrocardiogram not imported: ") }
        #expect(reasons.values.reduce(0, +) == 4)
        #expect(reasons.keys.contains { $0.contains("no header before its values") })
        #expect(reasons.keys.contains { $0.contains("no Recorded Date") })
        #expect(reasons.keys.contains { $0.contains("not a number") })
        #expect(reasons.keys.contains { $0.contains("longer than") })
    }

    @Test("An ECG CSV the store refuses (a sample rate so low that it ends beyond year 4000) is skipped as refused by the store; the others import")
    func electrocardiogramRefusedByTheStore() async throws {
        let good = AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded, values: [1, 2, 3])
        let slow = AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded, values: [1, 2, 3],
                                                                   header: ["Sample Rate": "0.000000000000001 hertz"])
        let (folder, url) = try Self.export(csvFiles: [("a.csv", good), ("b.csv", slow)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AppleHealthImporterTests.ownerStore()
        // Before: the store's errorInvalidArgument ended the whole import.
        let report = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(report.imported["HKDataTypeIdentifierElectrocardiogram"] == 1)
        let refused = report.skipped.filter { $0.key.hasPrefix("refused by the store: ") }
        #expect(refused.values.reduce(0, +) == 1)
        #expect(refused.keys.contains { $0.contains("between years 1 and 4000") }, "\(report.skipped)")
    }

    @Test("An ECG CSV laid out as the Health app writes it (an empty line before Lead and Unit, another before the values) parses")
    func realLayoutElectrocardiogram() throws {
        // The layout of a real `ecg_2020-09-24.csv`: the header is split by an empty line after
        // `Sample Rate`, and the values follow another empty line.
        let text = """
            Name,Jane Appleseed
            Date of Birth,"Jan 1, 1980"
            Recorded Date,2020-09-24 18:05:12 +0200
            Classification,Sinus Rhythm
            Symptoms,
            Software Version,2
            Device,"Apple Watch Series 6 (Watch6,1) - watchOS 7.0"
            Sample Rate,512 hertz

            Lead,Lead I
            Unit,µV

            -36.975
            -37.212
            "-38,5"

            """
        let csv = try ElectrocardiogramCSV(Array(text.utf8))
        #expect(csv.microvolts == [-36.975, -37.212, -38.5])
        #expect(csv.samplingFrequency == 512)
        #expect(csv.softwareVersion == "2")
        // A value line that is not a number after the first voltage is still refused.
        #expect(throws: AppleHealthExportError.self) { try ElectrocardiogramCSV(Array((text + "Lead,Lead II\n").utf8)) }
        // A header line other than Lead I before the values is still read and refused.
        let otherLead = text.replacingOccurrences(of: "Lead,Lead I", with: "Lead,Lead II")
        #expect(throws: AppleHealthExportError.self) { try ElectrocardiogramCSV(Array(otherLead.utf8)) }
    }

    @Test("Any mutation of an ECG CSV parses or fails with a typed error, never a crash (property)")
    func fuzzedElectrocardiograms() {
        let base = Array(AppleHealthExportGenerator.electrocardiogramCSV(recorded: Self.recorded,
                                                                         values: Array(AppleHealthExportGenerator.electrocardiogramWave(count: 64))).utf8)
        var random = SplitMix64(seed: 36)
        var parsed = 0
        var refused = 0
        for _ in 0..<2_000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
                case 1: if !bytes.isEmpty { bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &random)...) }
                case 2: bytes.insert(contentsOf: [UInt8](repeating: UInt8(ascii: "7"), count: Int.random(in: 1...6_000, using: &random)),
                                     at: Int.random(in: 0...bytes.count, using: &random))
                default: if !bytes.isEmpty { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random)) }
                }
            }
            do {
                let csv = try ElectrocardiogramCSV(bytes)
                #expect(!csv.microvolts.isEmpty && csv.samplingFrequency > 0)
                parsed += 1
            } catch {
                #expect([.invalidElement, .tooLarge].contains(error.kind))
                refused += 1
            }
        }
        #expect(parsed > 0 && refused > 0)
    }
}
