import Foundation
import HealthPresentation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Words and units people type")
struct HealthInputTests {
    /// The words the issue names, each with the HealthKit unit string it stands for (and the
    /// type whose molar mass `mmol/L` takes).
    static let everydayUnits: [(word: String, unitString: String, type: HKQuantityType?)] = [
        ("bpm", "count/min", nil), ("steps", "count", nil), ("kg", "kg", nil), ("lb", "lb", nil), ("st", "st", nil),
        ("mmol/L", "mmol<180.15588000005408>/L", HKQuantityType(.bloodGlucose)), ("mmol/l", "mmol<180.15588000005408>/L", HKQuantityType(.bloodGlucose)),
        ("mg/dL", "mg/dL", HKQuantityType(.bloodGlucose)), ("°C", "degC", nil), ("degC", "degC", nil), ("°F", "degF", nil),
        ("degF", "degF", nil), ("%", "%", nil), ("km", "km", nil), ("mi", "mi", nil), ("kcal", "kcal", nil), ("kJ", "kJ", nil),
        ("KG", "kg", nil), ("Kcal", "kcal", nil), ("BPM", "count/min", nil), ("breaths/min", "count/min", nil),
    ]

    /// Another unit of the same dimension to convert into, so that a conversion is checked and
    /// not only the value handed back.
    private static func otherUnit(for unit: HKUnit) -> HKUnit {
        let candidates = ["g", "m", "K", "J", "count/s", "mol<180.15588000005408>/m^3", "count", "kg/m^3", "s"].map { HKUnit(from: $0) }
        return candidates.first { $0 != unit && HKQuantity(unit: unit, doubleValue: 1).is(compatibleWith: $0) } ?? unit
    }

    @Test("every everyday unit converts exactly like its HealthKit unit string, for random values")
    func everydayUnitsConvertLikeHealthKit() throws {
        var random = SplitMix64(seed: 35)
        for (word, unitString, type) in Self.everydayUnits {
            let alias = try HealthUnits.unit(word, for: type)
            let healthKit = try HKUnit.parse(unitString)
            #expect(alias == healthKit, "\(word) is \(alias.unitString), not \(unitString)")
            let target = Self.otherUnit(for: healthKit)
            for _ in 0..<200 {
                let value = Double.random(in: -1e6...1e6, using: &random)
                let converted = HKQuantity(unit: alias, doubleValue: value).doubleValue(for: target)
                #expect(converted == HKQuantity(unit: healthKit, doubleValue: value).doubleValue(for: target), "\(word) \(value)")
            }
        }
    }

    @Test("every alias of the table converts like the HealthKit string it names")
    func aliasTableConvertsLikeHealthKit() throws {
        var random = SplitMix64(seed: 3535)
        for (word, unitString) in HealthUnits.aliases {
            let healthKit = try HKUnit.parse(unitString)
            // Upper case: the word, unless HealthKit reads that spelling as another unit (`S`, `ML`).
            let upper = word.uppercased()
            let spellings = [(word, healthKit)] + (word.allSatisfy(\.isASCII) ? [(upper, (try? HKUnit.parse(upper)) ?? healthKit)] : [])
            for (spelling, expected) in spellings {
                let alias = try HealthUnits.unit(spelling)
                #expect(alias == expected, "\(spelling)")
                let target = Self.otherUnit(for: expected)
                for _ in 0..<20 {
                    let value = Double.random(in: -1e4...1e4, using: &random)
                    #expect(HKQuantity(unit: alias, doubleValue: value).doubleValue(for: target)
                            == HKQuantity(unit: expected, doubleValue: value).doubleValue(for: target), "\(spelling)")
                }
            }
        }
    }

    @Test("a unit that does not measure the type is refused with the ones that do")
    func unitThatDoesNotFit() {
        #expect(throws: HealthPresentationError.unitDoesNotFit(unit: "kg", type: "Step Count", accepted: ["steps", "count"])) {
            try HealthUnits.unit("kg", for: HKQuantityType(.stepCount))
        }
        // Without glucose's molar mass, mmol/L is an amount of substance and measures no glucose.
        #expect(throws: HealthPresentationError.self) { try HealthUnits.unit("mmol/L", for: HKQuantityType(.bodyMass)) }
    }

    @Test("types by everyday names and by HealthKit's")
    func typeNames() throws {
        let expected: [(String, String)] = [
            ("weight", HKQuantityTypeIdentifier.bodyMass.rawValue), ("steps", HKQuantityTypeIdentifier.stepCount.rawValue),
            ("heart-rate", HKQuantityTypeIdentifier.heartRate.rawValue), ("Heart rate", HKQuantityTypeIdentifier.heartRate.rawValue),
            ("blood-pressure", HKCorrelationTypeIdentifier.bloodPressure.rawValue), ("sleep", HKCategoryTypeIdentifier.sleepAnalysis.rawValue),
            ("glucose", HKQuantityTypeIdentifier.bloodGlucose.rawValue), ("temperature", HKQuantityTypeIdentifier.bodyTemperature.rawValue),
            ("hrv", HKQuantityTypeIdentifier.heartRateVariabilitySDNN.rawValue), ("oxygen", HKQuantityTypeIdentifier.oxygenSaturation.rawValue),
            ("workouts", HKWorkoutTypeIdentifier), ("step-count", HKQuantityTypeIdentifier.stepCount.rawValue),
        ]
        for (name, identifier) in expected { #expect(try HealthTypes.sampleType(named: name).identifier == identifier, "\(name)") }
        for entry in HealthTypes.all {
            #expect(try HealthTypes.sampleType(named: entry.identifier).identifier == entry.identifier)
            #expect(try HealthTypes.sampleType(named: entry.swiftName).identifier == entry.identifier, "\(entry.swiftName)")
            for name in entry.everydayNames { #expect(try HealthTypes.sampleType(named: name).identifier == entry.identifier, "\(name)") }
        }
        #expect(throws: HealthPresentationError.unknownType("nonsense")) { try HealthTypes.sampleType(named: "nonsense") }
    }

    @Test("quantities as people write them")
    func quantities() throws {
        let glucose = HKQuantityType(.bloodGlucose)
        #expect(try HealthInput.quantity("5.4", unit: "mmol/L", for: glucose).doubleValue(for: HKUnit(from: "mg/dL"))
                == HKQuantity(unit: HKUnit(from: "mmol<180.15588000005408>/L"), doubleValue: 5.4).doubleValue(for: HKUnit(from: "mg/dL")))
        #expect(try HealthInput.quantity("8,412 steps", for: HKQuantityType(.stepCount)).doubleValue(for: .count()) == 8412)
        #expect(try HealthInput.quantity("20.5 %", for: HKQuantityType(.bodyFatPercentage)).doubleValue(for: .percent()) == 0.205)
        #expect(try HealthInput.quantity("36.8", unit: "°C", for: HKQuantityType(.bodyTemperature)).doubleValue(for: .degreeCelsius()) == 36.8)
        #expect(throws: HealthPresentationError.invalidNumber("1,5")) { try HealthInput.quantity("1,5", for: HKQuantityType(.bodyMass)) }
        // An exponent belongs to the number (it used to be read as the unit "e308").
        #expect(HealthInput.split("1.7e308 kg") == ("1.7e308", "kg"))
        #expect(HealthInput.split("2E-3kg") == ("2E-3", "kg"))
        #expect(HealthInput.split("5 e") == ("5", "e"))
        #expect(try HealthInput.quantity("1.7e308", unit: "kg", for: HKQuantityType(.bodyMass)).doubleValue(for: .gramUnit(with: .kilo)) == 1.7e308)
        #expect(try HealthInput.quantity("7.05E+1 kg", for: HKQuantityType(.bodyMass)).doubleValue(for: .gramUnit(with: .kilo)) == 70.5)
        #expect(throws: HealthPresentationError.invalidNumber("1e309 kg")) { try HealthInput.quantity("1e309 kg", for: HKQuantityType(.bodyMass)) }
        #expect(NumberText.parse("1e-400") == nil && NumberText.parse("0e-400") == 0 && NumberText.parse("0.000") == 0)
        #expect(NumberText.parse("1e") == nil && NumberText.parse("e5") == nil && NumberText.parse("1e5e5") == nil && NumberText.parse("-") == nil)
        let pressure = try HealthInput.bloodPressure("120/80 mmHg")
        #expect(pressure.systolic.doubleValue(for: .millimeterOfMercury()) == 120 && pressure.diastolic.doubleValue(for: .millimeterOfMercury()) == 80)
        #expect(throws: HealthPresentationError.invalidBloodPressure("80/120")) { try HealthInput.bloodPressure("80/120") }
    }

    @Test("a number without a unit is in the unit the person sees, the owner's choice first; glucose needs its unit")
    func unitlessNumbersAreInTheDisplayUnit() throws {
        let height = HKQuantityType(.height), distance = HKQuantityType(.distanceWalkingRunning), glucose = HKQuantityType(.bloodGlucose)
        #expect(try HealthInput.quantity("180", for: height).doubleValue(for: .meterUnit(with: .centi)) == 180)
        #expect(try HealthInput.unit(of: "180", for: height) == .meterUnit(with: .centi))
        #expect(try HealthInput.quantity("5", for: distance).doubleValue(for: .meterUnit(with: .kilo)) == 5)
        #expect(try HealthInput.quantity("72", for: HKQuantityType(.heartRate)).doubleValue(for: HKUnit(from: "count/min")) == 72)
        // Glucose: mg/dL and mmol/L differ eighteenfold, so a bare number is refused unless the owner chose.
        #expect(throws: HealthPresentationError.unitRequired(type: glucose.displayName, accepted: ["mg/dL", "mmol/L"])) {
            try HealthInput.quantity("5.4", for: glucose)
        }
        let mmolPerL = try HealthUnits.unit("mmol/L", for: glucose)
        let chosen = HealthFormatter(units: [glucose: mmolPerL, distance: .mile(), height: .inch()])
        #expect(try HealthInput.quantity("5.4", for: glucose, formatter: chosen).doubleValue(for: mmolPerL) == 5.4)
        #expect(try HealthInput.quantity("3.1", for: distance, formatter: chosen).doubleValue(for: .mile()) == 3.1)
        #expect(try HealthInput.unit(of: "70", for: height, formatter: chosen) == .inch())
        // A unit written with the number wins over the display unit.
        #expect(try HealthInput.quantity("5.4 mg/dL", for: glucose, formatter: chosen).doubleValue(for: HKUnit(from: "mg/dL")) == 5.4)
    }
}

@Suite("Values as the Health app writes them")
struct HealthFormatterTests {
    let formatter = HealthFormatter(timeZone: TimeZone(identifier: "UTC") ?? .current)
    let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// The units a type can be shown in: its default and the ones people type for it.
    private func displayUnits(for type: HKQuantityType) -> [HKUnit] {
        var units = [HealthFormatter.defaultUnit(for: type), type.defaultDisplayUnit]
        units += HealthUnits.acceptedUnits(for: type).compactMap { try? HealthUnits.unit($0, for: type) }
        var unique: [HKUnit] = []
        for unit in units where !unique.contains(unit) { unique.append(unit) }
        return unique
    }

    @Test("the display of every quantity type reads back through the input parser, within its displayed precision")
    func everyQuantityTypeRoundTrips() throws {
        var random = SplitMix64(seed: 0x35)
        let types = HKObjectType.allSampleTypes.compactMap { $0 as? HKQuantityType }
        #expect(types.count > 100)
        for type in types {
            for unit in displayUnits(for: type) {
                for _ in 0..<40 {
                    let number = pow(10, Double.random(in: -3...6, using: &random)) * (random.chance(0.1) ? -1 : 1)
                    let quantity = HealthFormatter.quantity(personNumber: number, unit: unit)
                    let text = formatter.quantity(quantity, of: type, unit: unit)
                    #expect(!(text.split(separator: " ").first ?? "").contains("e"), "\(text)")
                    let parsed = try HealthInput.quantity(text, for: type)
                    let decimals = HealthFormatter.decimals(for: type, unit: unit, number: number)
                    let tolerance = 0.5 * pow(10, -Double(decimals)) * (1 + 1e-9) + abs(number) * 1e-12
                    let difference = abs(HealthFormatter.personNumber(parsed, unit: unit) - number)
                    #expect(difference <= tolerance, "\(type.identifier): \(number) \(unit.unitString) shown as \(text)")
                }
            }
        }
    }

    @Test("every category value's name and label read back as the value")
    func categoryValuesRoundTrip() throws {
        let types = HKObjectType.allSampleTypes.compactMap { $0 as? HKCategoryType }
        #expect(types.count > 50)
        for type in types {
            let values = try #require(CategoryValues.values(for: type), "\(type.identifier) has no named values")
            for value in values {
                for spelling in [value.name, value.label, value.label.lowercased(), value.name.uppercased(), String(value.rawValue)] {
                    #expect(try CategoryValues.value(spelling, for: type) == value.rawValue, "\(type.identifier): \(spelling)")
                }
                let sample = HKCategorySample(type: type, value: value.rawValue, start: start, end: start.addingTimeInterval(47 * 60))
                let text = formatter.value(of: sample)
                if !CategoryValues.isValueless(type) {
                    #expect(text == "\(value.label) 47 min")
                    let shownLabel = String(text.dropLast(" 47 min".count))
                    #expect(try CategoryValues.value(shownLabel, for: type) == value.rawValue)
                }
            }
        }
        #expect(formatter.value(of: HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepCore.rawValue,
                                                     start: start, end: start.addingTimeInterval(47 * 60))) == "Core sleep 47 min")
    }

    @Test("a refused category value lists the valid names")
    func refusedCategoryValue() {
        let accepted = ["inBed", "asleepUnspecified", "awake", "asleepCore", "asleepDeep", "asleepREM"]
        #expect(throws: HealthPresentationError.unknownCategoryValue("dozing", type: "Sleep Analysis", accepted: accepted)) {
            try CategoryValues.value("dozing", for: HKCategoryType(.sleepAnalysis))
        }
        #expect(throws: HealthPresentationError.self) { try CategoryValues.value("9", for: HKCategoryType(.sleepAnalysis)) }
    }

    @Test("the Health app's words and precision")
    func examples() {
        func text(_ identifier: HKQuantityTypeIdentifier, _ value: Double, _ unit: String) -> String {
            formatter.quantity(HKQuantity(unit: HKUnit(from: unit), doubleValue: value), of: HKQuantityType(identifier))
        }
        #expect(text(.heartRate, 1.2, "count/s") == "72 bpm")
        #expect(text(.stepCount, 8412, "count") == "8,412 steps")
        #expect(text(.bodyMass, 70.46, "kg") == "70.5 kg")
        #expect(text(.bloodGlucose, 97.4, "mg/dL") == "97 mg/dL")
        #expect(formatter.quantity(HKQuantity(unit: HKUnit(from: "mmol<180.15588000005408>/L"), doubleValue: 5.44), of: HKQuantityType(.bloodGlucose),
                                   unit: HKUnit(from: "mmol<180.15588000005408>/L")) == "5.4 mmol/L")
        #expect(text(.bodyTemperature, 36.84, "degC") == "36.8 °C")
        #expect(text(.bodyFatPercentage, 0.2051, "%") == "20.5 %")
        #expect(text(.distanceWalkingRunning, 6500, "m") == "6.5 km")
        #expect(text(.respiratoryRate, 0.25, "count/s") == "15 breaths/min")
        #expect(text(.activeEnergyBurned, 1e20, "kcal") == "100,000,000,000,000,000,000 kcal")
        #expect(HealthFormatter.writtenNumber(15.605116822620527) == "15.61")
        #expect(HealthFormatter.writtenNumber(15.6) == "15.6")
        #expect(HealthFormatter.writtenNumber(0.00001234) == "0.00001234")
        let mmHg = HKUnit.millimeterOfMercury()
        let pressure = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: start, end: start, objects: [
            HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: mmHg, doubleValue: 120), start: start, end: start),
            HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: mmHg, doubleValue: 80), start: start, end: start),
        ])
        #expect(formatter.value(of: pressure) == "120/80 mmHg")
    }

    @Test("a length of more minutes than an Int holds (a workout imported with duration=\"1e300\" min) is written in hours, not a trap")
    func hugeDurations() {
        #expect(HealthFormatter.duration(2 * 3600 + 12 * 60) == "2 h 12 min")
        #expect(HealthFormatter.duration(6e301) == NumberText.format(6e301 / 3600, decimals: 0) + " h")
        #expect(HealthFormatter.duration(6e301).hasPrefix("16,666,666,666,666,6"))
        #expect(HealthFormatter.duration(-6e301).hasPrefix("-16,666,666,666,666,6"))
        #expect(HealthFormatter.duration(1e300).hasSuffix(" h") && !HealthFormatter.duration(1e300).contains("e"))
        let workout = HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(3600), duration: 6e301,
                                totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        #expect(formatter.value(of: workout).contains(" h"))
    }

    @Test("a source's number keeps the digits it was written with; binary noise is rounded")
    func writtenNumbersKeepTheirDigits() {
        #expect(NumberText.written(12345.6) == "12345.6")
        #expect(NumberText.written(1.0235) == "1.0235")
        #expect(NumberText.written(0.1 + 0.2) == "0.3")
        #expect(NumberText.written(15.605116822620527) == "15.61")
        #expect(NumberText.written(-0.000123456789) == "-0.000123456789")
        var random = SplitMix64(seed: 0x3503)
        for _ in 0..<5_000 {
            // A decimal as a lab writes it: up to 14 significant digits, up to 9 decimals.
            let digits = random.int(1...14)
            var mantissa = String(random.int(1...9))
            for _ in 1..<digits { mantissa += String(random.int(0...9)) }
            let decimals = random.int(0...min(9, digits + 3))
            let padded = String(repeating: "0", count: max(0, decimals - mantissa.count + 1)) + mantissa
            var text = padded.count > decimals && decimals > 0
                ? String(padded.dropLast(decimals)) + "." + String(padded.suffix(decimals)) : padded
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            while text.count > 1, text.hasPrefix("0"), !text.hasPrefix("0.") { text.removeFirst() }
            if random.chance(0.2) { text = "-" + text }
            guard let value = Double(text) else { Issue.record("\(text)"); continue }
            #expect(NumberText.written(value) == text, "\(text)")
        }
    }

    @Test("no number is written in exponent form", arguments: [1e-9, 1.5e-7, 0.1, 123_456_789.5, 1e21, -4.2e-5, 6.02e23])
    func noExponent(_ value: Double) {
        for decimals in [0, 1, 3, NumberText.significantDecimals(value)] {
            #expect(!NumberText.format(value, decimals: decimals).contains("e"))
        }
        #expect(!NumberText.written(value).contains("e"))
    }

    @Test("dates in local time with the zone, spans within a day, aligned columns")
    func datesAndColumns() throws {
        let paris = HealthFormatter(timeZone: try #require(TimeZone(identifier: "Europe/Paris")))
        let date = try Date("2026-11-20T07:30:00Z", strategy: .iso8601)
        #expect(formatter.date(date) == "2026-11-20 07:30 UTC")
        #expect(paris.localDateTime(date) == "2026-11-20 08:30")
        let kolkata = HealthFormatter(timeZone: try #require(TimeZone(identifier: "Asia/Kolkata")))
        #expect(kolkata.date(date) == "2026-11-20 13:00 IST" || kolkata.date(date) == "2026-11-20 13:00 UTC+5:30")
        #expect(paris.date(date) == "2026-11-20 08:30 CET" || paris.date(date) == "2026-11-20 08:30 UTC+1")
        #expect(formatter.span(from: date, to: date.addingTimeInterval(3600)) == "2026-11-20 07:30–08:30 UTC")
        // Within one minute (a 6-second ECG) one time, as the Health app shows it; into the next minute a range.
        #expect(formatter.span(from: date, to: date.addingTimeInterval(6)) == "2026-11-20 07:30 UTC")
        #expect(formatter.span(from: date, to: date.addingTimeInterval(60)) == "2026-11-20 07:30–07:31 UTC")
        #expect(formatter.span(from: date, to: date.addingTimeInterval(86_400)) == "2026-11-20 07:30 – 2026-11-21 07:30 UTC")
        #expect(HealthFormatter.columns([["a", "72 bpm", "Watch"], ["bbb", "8,412 steps", "Phone"]], rightAligned: [1])
                == ["a         72 bpm  Watch", "bbb  8,412 steps  Phone"])
    }
}
