import CommonSupport
import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit

/// Text and JSON for `health records`.
enum RecordsFormatter {
    // MARK: import

    /// Records stored and released from a report (an NDJSON file read in parts drops each
    /// part's records, resource bytes included, once stored): what the summary prints of them.
    struct StoredSummary {
        var count = 0
        var byType: [String: Int] = [:]
        var records: [JSONValue] = []

        /// Takes `report`'s stored records into the summary and empties that list.
        mutating func release(from report: inout HealthRecordImportReport) {
            count += report.stored.count
            for (type, number) in report.storedByType { byType[type, default: 0] += number }
            records += report.stored.map(RecordsFormatter.recordJSON)
            report.stored.removeAll()
        }
    }

    static func importText(_ report: HealthRecordImportReport, released: StoredSummary = StoredSummary()) -> [String] {
        var lines: [String] = []
        let counts = report.storedByType.merging(released.byType, uniquingKeysWith: +)
        let total = report.stored.count + released.count
        lines.append("stored \(total) record\(total == 1 ? "" : "s")")
        for (type, count) in counts.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(typeName(type)): \(count)")
        }
        let already = report.alreadyStoredCount
        if already > 0 {
            lines.append("\(already) record\(already == 1 ? " was" : "s were") already in the store (not stored again)")
        }
        if !report.skipped.isEmpty {
            let total = report.skipped.values.reduce(0, +)
            let detail = report.skipped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append("skipped \(total) resource\(total == 1 ? "" : "s") that are not clinical records (\(detail))")
        }
        // Refusals for the same reasons in one input are written once, with the count and the
        // first places (RepeatedFindings).
        let groups = RepeatedFindings.grouped(report.refusals, key: { $0.input + "\u{0}" + $0.reasons.joined(separator: "\u{0}") },
                                              place: { Substring($0.location) })
        for group in groups {
            let refusal = group.first
            if group.count == 1 {
                lines.append("refused \(refusal.input) \(refusal.location):")
            } else {
                lines.append("refused \(refusal.input)\(RepeatedFindings.suffix(count: group.count, places: group.places)):")
            }
            for reason in refusal.reasons { lines.append("  \(reason)") }
        }
        for failure in report.unreadable {
            lines.append("error: \(failure.input): \(failure.reason)")
        }
        if report.unreachableIssuers > 0 {
            lines.append("error: \(report.unreachableIssuers) card(s) not judged: the issuer's keys could not be fetched; "
                         + "to import offline, give them with --issuer ISS=DIR (a folder holding .well-known/jwks.json)")
        }
        return lines
    }

    static func importJSON(_ report: HealthRecordImportReport, released: StoredSummary = StoredSummary()) -> String {
        var stored: [JSONMember] = []
        for (type, count) in report.storedByType.merging(released.byType, uniquingKeysWith: +).sorted(by: { $0.key < $1.key }) {
            stored.append(JSONMember(key: typeName(type), value: .number(String(count))))
        }
        let skipped = report.skipped.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, value: .number(String($0.value))) }
        let refusals: [JSONValue] = report.refusals.map { refusal in
            .object(JSONObject(members: [
                JSONMember(key: "input", value: .string(refusal.input)),
                JSONMember(key: "location", value: .string(refusal.location)),
                JSONMember(key: "reasons", value: .array(refusal.reasons.map(JSONValue.string))),
            ]))
        }
        let unreadable: [JSONValue] = report.unreadable.map { failure in
            .object(JSONObject(members: [JSONMember(key: "input", value: .string(failure.input)),
                                         JSONMember(key: "reason", value: .string(failure.reason))]))
        }
        let document = JSONValue.object(JSONObject(members: [
            JSONMember(key: "complete", value: .bool(report.isComplete)),
            JSONMember(key: "storedCount", value: .number(String(report.stored.count + released.count))),
            JSONMember(key: "stored", value: .object(JSONObject(members: stored))),
            JSONMember(key: "skipped", value: .object(JSONObject(members: skipped))),
            JSONMember(key: "refused", value: .array(refusals)),
            JSONMember(key: "unreadable", value: .array(unreadable)),
            JSONMember(key: "unreachableIssuers", value: .number(String(report.unreachableIssuers))),
            JSONMember(key: "records", value: .array(released.records + report.stored.map(recordJSON))),
        ]))
        return JSONWriter.string(document, style: .pretty)
    }

    // MARK: list and show

    static func table(_ records: [HKSample]) -> [String] {
        records.map { record in
            let type = typeName(record.sampleType.identifier).padding(toLength: 18, withPad: " ", startingAt: 0)
            return "\(record.uuid.uuidString)  \(formatDate(record.startDate))  \(type)  \(title(record))  [\(record.sourceRevision.source.name)]"
        }
    }

    static func listJSON(_ records: [HKSample]) -> String {
        JSONWriter.string(.array(records.map(recordJSON)), style: .pretty)
    }

    static func detail(_ record: HKSample) -> [String] {
        var lines = ["\(typeName(record.sampleType.identifier)): \(title(record))",
                     "uuid: \(record.uuid.uuidString)",
                     "source: \(record.sourceRevision.source.name)",
                     "date: \(isoDate(record.startDate))\(record.endDate > record.startDate ? " – \(isoDate(record.endDate))" : "")"]
        if let clinical = record as? HKClinicalRecord, let resource = clinical.fhirResource {
            lines.append("resource: \(resource.resourceType.rawValue)/\(resource.identifier) (FHIR \(resource.fhirVersion.stringRepresentation))")
            if let url = resource.sourceURL { lines.append("url: \(url.absoluteString)") }
            lines.append("")
            if let value = try? JSONParser.parse(Array(resource.data)) {
                lines.append(JSONWriter.string(value, style: .pretty))
            } else {
                lines.append(String(decoding: resource.data, as: UTF8.self))
            }
        } else if let card = record as? HKVerifiableClinicalRecord {
            lines.append("subject: \(card.subject.fullName)\(birthText(card.subject.dateOfBirthComponents).map { ", born \($0)" } ?? "")")
            lines.append("issuer: \(card.issuerIdentifier)")
            lines.append("issued: \(isoDate(card.issuedDate))")
            lines.append("relevant: \(isoDate(card.relevantDate))")
            if let expiration = card.expirationDate { lines.append("expires: \(isoDate(expiration))") }
            lines.append("types: \(card.recordTypes.joined(separator: ", "))")
            lines.append("items:")
            for item in card.itemNames { lines.append("  \(item)") }
        }
        return lines
    }

    static func sharesJSON(_ shares: [HKVerifiableRecordShare]) -> String {
        JSONWriter.string(.array(shares.map { share in
            .object(JSONObject(members: [
                JSONMember(key: "app", value: .string(share.appName)),
                JSONMember(key: "bundleIdentifier", value: .string(share.bundleIdentifier)),
                JSONMember(key: "date", value: .string(isoDate(share.date))),
                JSONMember(key: "declined", value: .bool(share.declined)),
                JSONMember(key: "records", value: .array(share.recordUUIDs.map { .string($0.uuidString) })),
            ]))
        }), style: .pretty)
    }

    // MARK: parts

    static func recordJSON(_ record: HKSample) -> JSONValue {
        var members = [
            JSONMember(key: "uuid", value: .string(record.uuid.uuidString)),
            JSONMember(key: "type", value: .string(typeName(record.sampleType.identifier))),
            JSONMember(key: "start", value: .string(isoDate(record.startDate))),
            JSONMember(key: "end", value: .string(isoDate(record.endDate))),
            JSONMember(key: "source", value: .string(record.sourceRevision.source.name)),
            JSONMember(key: "name", value: .string(title(record))),
        ]
        if let clinical = record as? HKClinicalRecord, let resource = clinical.fhirResource {
            members.append(JSONMember(key: "resourceType", value: .string(resource.resourceType.rawValue)))
            members.append(JSONMember(key: "id", value: .string(resource.identifier)))
            members.append(JSONMember(key: "fhirVersion", value: .string(resource.fhirVersion.stringRepresentation)))
            if let url = resource.sourceURL { members.append(JSONMember(key: "sourceURL", value: .string(url.absoluteString))) }
        } else if let card = record as? HKVerifiableClinicalRecord {
            members.append(JSONMember(key: "issuer", value: .string(card.issuerIdentifier)))
            members.append(JSONMember(key: "subject", value: .string(card.subject.fullName)))
            members.append(JSONMember(key: "recordTypes", value: .array(card.recordTypes.map(JSONValue.string))))
            members.append(JSONMember(key: "itemNames", value: .array(card.itemNames.map(JSONValue.string))))
            members.append(JSONMember(key: "issued", value: .string(isoDate(card.issuedDate))))
            if let expiration = card.expirationDate { members.append(JSONMember(key: "expires", value: .string(isoDate(expiration)))) }
        }
        return .object(JSONObject(members: members))
    }

    /// `HKClinicalTypeIdentifierLabResultRecord` → `labResultRecord`; the verifiable type → `verifiable`.
    static func typeName(_ identifier: String) -> String {
        if identifier == HKObjectType.verifiableClinicalRecordType().identifier { return "verifiable" }
        let prefix = "HKClinicalTypeIdentifier"
        guard identifier.hasPrefix(prefix) else { return identifier }
        let name = identifier.dropFirst(prefix.count)
        return name.prefix(1).lowercased() + name.dropFirst()
    }

    static func title(_ record: HKSample) -> String {
        if let clinical = record as? HKClinicalRecord { return clinical.displayName }
        if let card = record as? HKVerifiableClinicalRecord { return card.itemNames.joined(separator: ", ") }
        return record.sampleType.identifier
    }

    /// A date of birth as `YYYY-MM-DD`, or the parts it has (`YYYY-MM`, `YYYY`), each written as
    /// `ISODateText.string(year:month:day:)` writes it (C's `%04d-%02d-%02d`) with integer
    /// arithmetic; nil without a year.
    static func birthText(_ components: DateComponents?) -> String? {
        guard let components, let year = components.year else { return nil }
        if let month = components.month, let day = components.day { return ISODateText.string(year: year, month: month, day: day) }
        var text = padded(year, width: 4)
        if let month = components.month { text += "-" + padded(month, width: 2) }
        if let day = components.day { text += "-" + padded(day, width: 2) }
        return text
    }

    /// `value` as `%0<width>d` writes it: zero-padded to `width` characters, a negative value's
    /// sign counted in the width (`-001`), a wider value with all its digits.
    private static func padded(_ value: Int, width: Int) -> String {
        let sign = value < 0 ? "-" : ""
        let digits = String(value.magnitude)
        return sign + String(repeating: "0", count: max(0, width - sign.count - digits.count)) + digits
    }
}
