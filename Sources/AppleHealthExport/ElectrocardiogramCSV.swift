import CommonSupport
import Crypto
import Foundation
import OpenHealthKit

/// One file of an export's `electrocardiograms/` folder, as the Health app writes it: header
/// lines (`Name`, `Date of Birth`, `Recorded Date`, `Classification`, `Symptoms`, `Software
/// Version`, `Device`, `Sample Rate`, then after an empty line `Lead`, `Unit`), an empty line,
/// then one voltage per line in µV, every sample of the lead. Header lines are `Name,Value` lines
/// anywhere before the first voltage; empty lines are skipped; the first voltage ends the header.
///
/// A file that cannot be read is refused with a typed ``AppleHealthExportError`` naming the line
/// and what is wrong with it (never a value from it): a missing header, a value that is not a
/// number, a line longer than ``maximumLineLength``, more than ``maximumValues`` values.
struct ElectrocardiogramCSV {
    /// The longest line read (a header's quoted device description is a few hundred bytes).
    static let maximumLineLength = 4_096
    /// The most voltages one file may hold (an hour at 512 Hz; a recording lasts 30 s).
    static let maximumValues = 1_843_200

    var recorded: Date
    var classification: HKElectrocardiogram.Classification
    var symptomsStatus: HKElectrocardiogram.SymptomsStatus
    var samplingFrequency: Double
    var softwareVersion: String?
    var device: HKDevice?
    var microvolts: [Float]

    /// Parses a file's bytes.
    /// - Throws: ``AppleHealthExportError`` (`invalidElement` or `tooLarge`) for a file that is not such a CSV.
    init(_ bytes: [UInt8]) throws(AppleHealthExportError) {
        var header: [String: String] = [:]
        var values: [Float] = []
        var lineNumber = 0
        var inHeader = true
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            lineNumber += 1
            guard end - start <= Self.maximumLineLength else {
                throw AppleHealthExportError(.tooLarge, line: lineNumber, "an electrocardiogram CSV has a line longer than \(Self.maximumLineLength) bytes")
            }
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            let line = bytes[start..<lineEnd]
            start = end + 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ",") }) { continue }
            if inHeader {
                if Self.number(line) == nil {
                    let text = String(decoding: line, as: UTF8.self)
                    let fields = Self.fields(text)
                    guard let key = fields.first, !key.isEmpty else { continue }
                    header[key.trimmingCharacters(in: .whitespaces)] = fields.dropFirst().joined(separator: ",").trimmingCharacters(in: .whitespaces)
                    continue
                }
                // The first voltage ends the header (the Health app writes empty lines inside it too).
                guard !header.isEmpty else {
                    throw AppleHealthExportError(.invalidElement, line: lineNumber, "an electrocardiogram CSV has no header before its values")
                }
                inHeader = false
            }
            guard let value = Self.number(line) else {
                throw AppleHealthExportError(.invalidElement, line: lineNumber, "an electrocardiogram CSV has a value that is not a number")
            }
            guard values.count < Self.maximumValues else {
                throw AppleHealthExportError(.tooLarge, line: lineNumber, "an electrocardiogram CSV has more than \(Self.maximumValues) values")
            }
            values.append(value)
        }
        guard let recordedText = header["Recorded Date"], let recorded = ExportValues.date(recordedText) else {
            throw AppleHealthExportError(.invalidElement, "an electrocardiogram CSV has no Recorded Date like 2019-06-25 09:36:02 -0700")
        }
        guard let rateText = header["Sample Rate"], let rate = Self.leadingNumber(rateText), rate > 0, rate.isFinite else {
            throw AppleHealthExportError(.invalidElement, "an electrocardiogram CSV has no Sample Rate in hertz")
        }
        if let lead = header["Lead"], !lead.isEmpty, lead.lowercased() != "lead i" {
            throw AppleHealthExportError(.invalidElement, "an electrocardiogram CSV records a lead other than Lead I")
        }
        if let unit = header["Unit"], !unit.isEmpty, !["µv", "μv", "uv"].contains(unit.lowercased()) {
            throw AppleHealthExportError(.invalidElement, "an electrocardiogram CSV has voltages in a unit other than µV")
        }
        guard !values.isEmpty else {
            throw AppleHealthExportError(.invalidElement, "an electrocardiogram CSV has no voltages")
        }
        self.recorded = recorded
        self.samplingFrequency = rate
        self.classification = Self.classification(header["Classification"] ?? "")
        self.symptomsStatus = (header["Symptoms"] ?? "").isEmpty ? .none : .present
        self.softwareVersion = header["Software Version"].flatMap { $0.isEmpty ? nil : $0 }
        self.device = header["Device"].flatMap(Self.device)
        self.microvolts = values
    }

    /// The electrocardiogram, with a sync identifier from the file's content (importing it
    /// again stores nothing) and the entries of `extra` added to its metadata.
    func electrocardiogram(digest: [UInt8], extra: [String: Any]? = nil) throws -> HKElectrocardiogram {
        let end = recorded.addingTimeInterval(Double(microvolts.count) / samplingFrequency)
        var metadata: [String: Any] = [
            HKMetadataKeySyncIdentifier: AppleHealthImporter.syncIdentifierPrefix + "ecg:" + HexText.encode(digest),
            HKMetadataKeySyncVersion: 1,
        ]
        if let version = softwareVersion, let number = Double(version), number.isFinite { metadata[HKMetadataKeyAppleECGAlgorithmVersion] = number }
        if let extra { metadata.merge(extra) { _, added in added } }
        return try HKElectrocardiogram(start: recorded, end: end, classification: classification, symptomsStatus: symptomsStatus,
                                       averageHeartRate: nil, samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: samplingFrequency),
                                       microvolts: [.appleWatchSimilarToLeadI: microvolts], device: device, metadata: metadata)
    }

    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }

    /// A CSV line's fields: commas outside double quotes separate them.
    static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        for character in line {
            if character == "\"" { quoted.toggle(); continue }
            if character == ",", !quoted {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }

    /// A voltage: `-36.975`, or a quoted `"-36,975"` as locales with a decimal comma write it.
    static func number(_ line: ArraySlice<UInt8>) -> Float? {
        var text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
            text = String(text.dropFirst().dropLast()).replacingOccurrences(of: ",", with: ".")
        }
        guard let value = Float(text), value.isFinite else { return nil }
        return value
    }

    /// The number a text starts with: `512 hertz` → 512.
    static func leadingNumber(_ text: String) -> Double? {
        let number = text.prefix { $0.isNumber || $0 == "." || $0 == "," }.replacingOccurrences(of: ",", with: ".")
        return Double(number)
    }

    /// The Health app's classification text as HealthKit's classification.
    static func classification(_ text: String) -> HKElectrocardiogram.Classification {
        let lower = text.lowercased()
        if lower.isEmpty { return .notSet }
        if lower.contains("sinus") { return .sinusRhythm }
        if lower.contains("atrial fibrillation") || lower.contains("afib") { return .atrialFibrillation }
        if lower.contains("over") || lower.contains("high") || lower.contains("above") { return .inconclusiveHighHeartRate }
        if lower.contains("under") || lower.contains("low") || lower.contains("below") { return .inconclusiveLowHeartRate }
        if lower.contains("poor") { return .inconclusivePoorReading }
        if lower.contains("inconclusive") { return .inconclusiveOther }
        return .unrecognized
    }

    /// `Apple Watch Series 6 (Watch6,1) - watchOS 7.3`-like text: the model in parentheses is
    /// the hardware version.
    static func device(_ text: String) -> HKDevice? {
        let trimmed = String(text.prefix(200))
        guard !trimmed.isEmpty else { return nil }
        var hardware: String?
        if let open = trimmed.firstIndex(of: "("), let close = trimmed[open...].firstIndex(of: ")") {
            hardware = String(trimmed[trimmed.index(after: open)..<close])
        }
        let name = trimmed.components(separatedBy: " (").first ?? trimmed
        return HKDevice(name: name, manufacturer: "Apple Inc.", model: name.hasPrefix("Apple Watch") ? "Watch" : nil,
                        hardwareVersion: hardware, firmwareVersion: nil, softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
    }
}
