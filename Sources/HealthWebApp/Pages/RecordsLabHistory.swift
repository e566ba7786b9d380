import Foundation
import HealthPresentation
import HealthRecords
import OpenHealthKit

/// A lab result's history: the earlier (and later) results of the same test (the same code), as
/// a line through their values with the reference range as a band, and a table of dates and
/// values written to the precision the lab gave (`HealthFormatter.writtenNumber`).
struct RecordsLabHistory {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText

    /// One result of a test: when, its value and unit.
    struct Result {
        let date: Date
        let value: Double
        let unit: String
        let uuid: UUID
    }

    /// A result's number and unit, when its value is a quantity.
    static func quantity(_ resource: [String: Any]) -> (value: Double, unit: String)? {
        guard let quantity = resource["valueQuantity"] as? [String: Any], let number = quantity["value"] as? NSNumber,
              number.doubleValue.isFinite else { return nil }
        return (number.doubleValue, quantity["unit"] as? String ?? quantity["code"] as? String ?? "")
    }

    /// The reference range's low and high values (either may be missing).
    static func range(_ resource: [String: Any]) -> (low: Double?, high: Double?)? {
        guard let range = (resource["referenceRange"] as? [[String: Any]])?.first else { return nil }
        let value = { (key: String) in ((range[key] as? [String: Any])?["value"] as? NSNumber)?.doubleValue }
        let (low, high) = (value("low"), value("high"))
        return low == nil && high == nil ? nil : (low, high)
    }

    /// The history section of a lab result's page, or "" when it is not a lab result with a coded quantity.
    /// - Parameters:
    ///   - record: the record shown.
    ///   - resource: its FHIR resource, parsed.
    func section(for record: HKClinicalRecord, resource: [String: Any]) async throws -> String {
        guard record.clinicalType.identifier == HKClinicalTypeIdentifier.labResultRecord.rawValue,
              let key = record.fhirResource.flatMap({ HealthRecordTestCode.code(json: $0.data) }), let own = Self.quantity(resource) else { return "" }
        // Only the results of this test, found by the code the import keeps in their metadata (an
        // index lookup); lab results stored before it did get it once first.
        try await HealthRecordTestCode.completeStoredRecords(in: store)
        let sameTest = HKQuery.predicateForObjects(withMetadataKey: HealthRecordTestCode.key, allowedValues: [key])
        let all = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: HKClinicalType(.labResultRecord), predicate: sameTest)],
                                                    sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate)]).result(for: store)
        let results: [Result] = all.compactMap { other in
            guard let data = other.fhirResource?.data,
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let quantity = Self.quantity(object), quantity.unit == own.unit else { return nil }
            return Result(date: other.startDate, value: quantity.value, unit: quantity.unit, uuid: other.uuid)
        }
        guard !results.isEmpty else { return "" }
        let range = Self.range(resource)
        let unit = own.unit.isEmpty ? "" : " " + own.unit
        let points = results.map { ChartPoint(label: String(text.date($0.date).prefix(10)), value: $0.value) }
        let title = "\(record.displayName): every result (\(own.unit))"
        let svg = SVGChart.line(points, id: "history", title: title, band: range.map { ($0.low, $0.high) })
        let rangeText: String
        switch (range?.low, range?.high) {
        case let (low?, high?):
            rangeText = "The band is the reference range, \(HealthFormatter.writtenNumber(low)) to \(HealthFormatter.writtenNumber(high))\(unit)."
        case let (low?, nil): rangeText = "The band is the reference range, from \(HealthFormatter.writtenNumber(low))\(unit)."
        case let (nil, high?): rangeText = "The band is the reference range, up to \(HealthFormatter.writtenNumber(high))\(unit)."
        default: rangeText = "The result gives no reference range."
        }
        let rows: [[String: Any]] = results.reversed().map { result in
            var note = ""
            if let low = range?.low, result.value < low { note = "below the range" }
            if let high = range?.high, result.value > high { note = "above the range" }
            if result.uuid == record.uuid { note = note.isEmpty ? "this result" : "this result, \(note)" }
            return ["cells": [String(text.date(result.date).prefix(10)), HealthFormatter.writtenNumber(result.value) + unit, note]]
        }
        return pages.render("chart", [
            "id": "history", "title": results.count == 1 ? "History: no other result of this test" : "History: \(results.count) results of this test",
            "caption": "Each result of this test, oldest first. \(rangeText)", "svg": svg, "hasData": true,
            "columns": ["Date", "Value", "Note"], "rows": rows,
        ])
    }
}
