import CommonSupport
import Foundation
import OpenHealthKit

/// Reading the values Apple writes in an export: dates, devices, metadata, category values,
/// characteristics.
enum ExportValues {
    /// Parses `2019-06-25 09:36:02 -0700` (the export's date format, with the offset it was
    /// recorded at). Nil for anything else.
    static func date(_ text: String) -> Date? {
        var text = text
        return text.withUTF8(date(bytes:))
    }

    /// ``date(_:)`` of the UTF-8 bytes of a text.
    static func date(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 25, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: " ") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), let offsetHours = number(21..<23),
              let offsetMinutes = number(23..<25) else { return nil }
        let sign: Int
        switch bytes[20] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(month, year: year), hour < 24, minute < 60, second < 61,
              offsetHours < 24, offsetMinutes < 60 else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
        let local = days * 86_400 + hour * 3600 + minute * 60 + second
        let utc = local - sign * (offsetHours * 3600 + offsetMinutes * 60)
        return Date(timeIntervalSince1970: TimeInterval(utc))
    }

    /// Parses a birth date, `1980-01-31`.
    static func dateComponents(_ text: String) -> DateComponents? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(month, year: year) else { return nil }
        return DateComponents(year: year, month: month, day: day)
    }

    /// The keys of HealthKit's device description, `<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., …>`.
    private static let deviceKeys = ["name", "manufacturer", "model", "hardware", "firmware", "software", "localIdentifier",
                                     "UDIDeviceIdentifier", "FDAUDI", "creation date"]

    /// Parses HealthKit's description of a device; nil when the text is not one.
    static func device(_ text: String) -> HKDevice? {
        guard text.hasPrefix("<<HKDevice"), text.hasSuffix(">"), let header = text.range(of: ">, ") else { return nil }
        let body = String(text[header.upperBound..<text.index(before: text.endIndex)])
        // Where each "key:" starts (at the beginning or after ", "): values may hold commas (Watch6,1).
        var starts: [(index: String.Index, key: String, valueStart: String.Index)] = []
        for key in deviceKeys {
            var searchStart = body.startIndex
            while let range = body.range(of: key + ":", range: searchStart..<body.endIndex) {
                if range.lowerBound == body.startIndex || body[..<range.lowerBound].hasSuffix(", ") {
                    starts.append((range.lowerBound, key, range.upperBound))
                    break
                }
                searchStart = range.upperBound
            }
        }
        starts.sort { $0.index < $1.index }
        var values: [String: String] = [:]
        for (position, start) in starts.enumerated() {
            var end = position + 1 < starts.count ? starts[position + 1].index : body.endIndex
            if position + 1 < starts.count, body[start.valueStart..<end].hasSuffix(", ") {
                end = body.index(end, offsetBy: -2)
            }
            let value = String(body[start.valueStart..<max(end, start.valueStart)]).trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { values[start.key] = value }
        }
        guard !values.isEmpty else { return nil }
        return HKDevice(name: values["name"], manufacturer: values["manufacturer"], model: values["model"],
                        hardwareVersion: values["hardware"], firmwareVersion: values["firmware"], softwareVersion: values["software"],
                        localIdentifier: values["localIdentifier"], udiDeviceIdentifier: values["UDIDeviceIdentifier"] ?? values["FDAUDI"])
    }

    /// An Apple model identifier (`Watch6,1`, `iPhone12,1`) as a device's hardware gives it;
    /// nil for any other hardware text (a third-party device's `1.0`).
    static func productType(_ hardware: String) -> String? {
        let parts = hardware.split(separator: ",", omittingEmptySubsequences: false)
        guard hardware.count <= 40, parts.count == 2, let letters = parts[0].firstIndex(where: \.isNumber),
              letters != parts[0].startIndex, parts[0][..<letters].allSatisfy({ $0.isASCII && $0.isLetter }),
              parts[0][letters...].allSatisfy({ $0.isASCII && $0.isNumber }),
              !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return hardware
    }

    /// A metadata value as HealthKit would hold it: Apple writes every value as text; integers
    /// and decimals written canonically become numbers, `12 cm` a quantity, dates dates, and
    /// anything else stays text.
    static func metadataValue(_ text: String) -> Any {
        if let integer = Int(text), String(integer) == text { return integer }
        if let double = Double(text), double.isFinite, text.contains("."), !text.hasPrefix("."), !text.hasSuffix("."),
           text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) {
            return double
        }
        if let date = date(text) { return date }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        if parts.count == 2, let value = Double(parts[0]), value.isFinite, let unit = try? HKUnit.parse(String(parts[1])) {
            return HKQuantity(unit: unit, doubleValue: value)
        }
        return text
    }

    /// The category values HealthKit names in exports (`HKCategoryValueSleepAnalysisAsleepCore`), by name.
    private static let categoryValues: [String: Int] = {
        var table: [String: Int] = [:]
        func add<E: CaseIterable & RawRepresentable>(_ type: E.Type, _ prefix: String) where E.RawValue == Int {
            for value in E.allCases {
                table[("HKCategoryValue" + prefix + String(describing: value)).lowercased()] = value.rawValue
            }
        }
        add(HKCategoryValue.self, "")
        add(HKCategoryValueAppetiteChanges.self, "AppetiteChanges")
        add(HKCategoryValueAppleStandHour.self, "AppleStandHour")
        add(HKCategoryValueAppleWalkingSteadinessEvent.self, "AppleWalkingSteadinessEvent")
        add(HKCategoryValueEnvironmentalAudioExposureEvent.self, "AudioExposureEvent")
        add(HKCategoryValueCervicalMucusQuality.self, "CervicalMucusQuality")
        add(HKCategoryValueContraceptive.self, "Contraceptive")
        add(HKCategoryValueEnvironmentalAudioExposureEvent.self, "EnvironmentalAudioExposureEvent")
        add(HKCategoryValueHeadphoneAudioExposureEvent.self, "HeadphoneAudioExposureEvent")
        add(HKCategoryValueLowCardioFitnessEvent.self, "LowCardioFitnessEvent")
        add(HKCategoryValueMenstrualFlow.self, "MenstrualFlow")
        add(HKCategoryValueOvulationTestResult.self, "OvulationTestResult")
        add(HKCategoryValuePregnancyTestResult.self, "PregnancyTestResult")
        add(HKCategoryValuePresence.self, "Presence")
        add(HKCategoryValueProgesteroneTestResult.self, "ProgesteroneTestResult")
        add(HKCategoryValueSeverity.self, "Severity")
        add(HKCategoryValueSleepAnalysis.self, "SleepAnalysis")
        add(HKCategoryValueVaginalBleeding.self, "VaginalBleeding")
        // The pre-iOS 16 name of asleepUnspecified.
        table["hkcategoryvaluesleepanalysisasleep"] = HKCategoryValueSleepAnalysis.asleepUnspecified.rawValue
        return table
    }()

    /// A category value: HealthKit's name for it, or its number.
    static func categoryValue(_ text: String) -> Int? {
        if let number = Int(text) { return number }
        return categoryValues[text.lowercased()]
    }

    /// A characteristic's value from HealthKit's name for it (`HKBiologicalSexFemale`).
    static func enumValue<E: CaseIterable>(_ type: E.Type, prefix: String, _ text: String) -> E? {
        let wanted = text.lowercased()
        return E.allCases.first { (prefix + String(describing: $0)).lowercased() == wanted }
    }
}
