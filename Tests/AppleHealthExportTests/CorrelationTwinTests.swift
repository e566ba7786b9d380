import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// The import reads the export once: correlation members' top-level twins are held until the
/// end of the file and dropped when a correlation claimed them, wherever they are.
@Suite("Apple Health import: correlation twins in one pass")
struct CorrelationTwinTests {
    static func pressure(_ type: String, _ value: String, at time: String, indent: String = " ") -> String {
        AppleHealthExportGenerator.recordText(type: type, unit: "mmHg", value: value, source: "Omron", version: "2.1", device: nil,
                                              start: time, end: time, metadata: [], indent: indent)
    }

    static func correlation(at time: String, _ systolic: String, _ diastolic: String) -> String {
        """
         <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="2.1" startDate="\(time)" endDate="\(time)">
        \(pressure("HKQuantityTypeIdentifierBloodPressureSystolic", systolic, at: time, indent: "  "))
        \(pressure("HKQuantityTypeIdentifierBloodPressureDiastolic", diastolic, at: time, indent: "  "))
         </Correlation>
        """
    }

    @Test("Twins before or after their correlation are stored once; member-type records no correlation claims are all stored")
    func twinsInAnyOrder() async throws {
        var export = AppleHealthExportGenerator()
        let first = "2020-10-03 08:00:00 -0400", second = "2020-10-04 08:00:00 -0400", lone = "2020-10-05 08:00:00 -0400"
        // Apple's order: twins first.
        export.raw(Self.pressure("HKQuantityTypeIdentifierBloodPressureSystolic", "121", at: first))
        export.raw(Self.pressure("HKQuantityTypeIdentifierBloodPressureDiastolic", "79", at: first))
        export.raw(Self.correlation(at: first, "121", "79"))
        // The other order: the correlation, then its twins.
        export.raw(Self.correlation(at: second, "131", "85"))
        export.raw(Self.pressure("HKQuantityTypeIdentifierBloodPressureSystolic", "131", at: second))
        export.raw(Self.pressure("HKQuantityTypeIdentifierBloodPressureDiastolic", "85", at: second))
        // Readings without a correlation, and a dietary record.
        export.raw(Self.pressure("HKQuantityTypeIdentifierBloodPressureSystolic", "140", at: lone))
        export.raw(Self.pressure("HKQuantityTypeIdentifierBloodPressureDiastolic", "90", at: lone))
        export.record(type: "HKQuantityTypeIdentifierDietaryWater", unit: "mL", value: "250", start: lone, end: lone)
        let url = try AppleHealthImporterTests.write(export.document())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()

        // A batch size of 1: held records are saved after everything else, in batches too.
        let report = try await AppleHealthImporter(batchSize: 1).importExport(at: url, into: store)
        #expect(report.duplicates == 4)
        #expect(report.imported[HKCorrelationTypeIdentifier.bloodPressure.rawValue] == 2)
        #expect(report.imported[HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue] == 3)
        #expect(report.imported[HKQuantityTypeIdentifier.dietaryWater.rawValue] == 1)
        let systolic = try await AppleHealthImporterTests.quantities(store, .bloodPressureSystolic)
        #expect(systolic.map { $0.quantity.doubleValue(for: .millimeterOfMercury()) }.sorted() == [121, 131, 140])
        #expect(try await AppleHealthImporterTests.quantities(store, .dietaryWater).count == 1)

        // Again: nothing stored twice.
        _ = try await AppleHealthImporter(batchSize: 1).importExport(at: url, into: store)
        #expect(try await AppleHealthImporterTests.quantities(store, .bloodPressureSystolic).count == 3)
        let correlations = try await HKSampleQueryDescriptor(predicates: [.correlation(type: HKCorrelationType(.bloodPressure))],
                                                             sortDescriptors: []).result(for: store)
        #expect(correlations.count == 2)
    }
}
