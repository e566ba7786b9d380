import Foundation
@testable import HealthWebApp
import HealthPresentation
import OpenHealthKit
import Testing
import TestSupport

/// The "Add data" form's readers, fuzzed: the date-and-time field and the whole form, with
/// random and mangled input, never crash and either read a value or refuse it with a reason.
@Suite("Add data input")
struct AddDataInputTests {
    static var calendar: Calendar { WebTestFixture.calendar }

    @Test("a date written as the form writes it reads back as the same minute, in several zones")
    func dateRoundTrip() throws {
        var random = SplitMix64(seed: 39)
        for zone in ["UTC", "America/New_York", "Asia/Kolkata", "Pacific/Chatham"] {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: zone))
            for _ in 0..<500 {
                let minute = Double(random.int(-2_000_000...40_000_000)) * 60
                let date = Date(timeIntervalSince1970: minute)
                let text = AddDataInput.fieldText(date, calendar: calendar)
                let read = AddDataInput.dateTime(text, calendar: calendar)
                // A wall-clock minute skipped by a daylight-saving change reads as another instant; every other one is the same.
                if let read { #expect(AddDataInput.fieldText(read, calendar: calendar) == text || read != date, "\(text) in \(zone)") }
                #expect(read != nil, "\(text) in \(zone)")
                if calendar.timeZone.identifier == "UTC" { #expect(read == date, "\(text)") }
            }
        }
    }

    @Test("dates that are not calendar days or times are refused", arguments: [
        "", "2025-11-26", "2025-11-26T", "2025-02-29T08:00", "2025-11-31T08:00", "2025-11-26T24:00", "2025-11-26T08:60", "25-11-26T08:00",
        "2025-1-26T08:00", "2025-11-26T8:00", "2025-11-26T08:00:61", "2025-11-26T08:00:00.1234", "２０２５-11-26T08:00", "2025-11-26T08:00Z",
        "1899-12-31T23:59", "+2025-11-26T08:00", "2025-11-26T08:00:00:00", "2025-11-26 T08:00",
    ])
    func badDates(_ text: String) {
        #expect(AddDataInput.dateTime(text, calendar: Self.calendar) == nil, "\(text)")
    }

    @Test("dates the browser sends are read", arguments: ["2024-02-29T08:00", "2025-11-26T08:15:30", "2025-11-26 08:15", "2025-11-26T08:15:30.250"])
    func goodDates(_ text: String) {
        #expect(AddDataInput.dateTime(text, calendar: Self.calendar) != nil, "\(text)")
    }

    @Test("random and mangled forms never crash: each is read into a sample of its type or refused with a reason")
    func fuzzForms() {
        var random = SplitMix64(seed: 3939)
        let pieces = ["70", "70.5", "-3", "1e308", "1e999", "nan", "inf", "0", "١٢", "70 kg", "70 lb", "kg", "lb", "%", "bpm", "mmol/L",
                      "2025-11-26T08:00", "2025-11-26T09:00", "2025-02-30T08:00", "asleepREM", "Deep sleep", "running", "120", "80", "",
                      " ", "\u{0}", "'; DROP", String(repeating: "9", count: 400), "kJ", "mi", "km", "lb/min"]
        let names = ["value", "unit", "start", "end", "systolic", "diastolic", "activity", "energy", "energyUnit", "distance", "distanceUnit"]
        let kinds: [AddDataInput.Kind] = [.quantity(HKQuantityType(.bodyMass)), .quantity(HKQuantityType(.bloodGlucose)),
                                          .quantity(HKQuantityType(.bodyFatPercentage)), .category(HKCategoryType(.sleepAnalysis)),
                                          .category(HKCategoryType(.mindfulSession)), .bloodPressure, .workout]
        let formatter = HealthFormatter(units: [:], timeZone: Self.calendar.timeZone)
        for _ in 0..<3_000 {
            var body: [String] = []
            for name in names where random.int(0...2) > 0 {
                let value = pieces[random.int(0...(pieces.count - 1))]
                body.append("\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            }
            let kind = kinds[random.int(0...(kinds.count - 1))]
            do throws(AddDataError) {
                let sample = try AddDataInput.sample(kind, form: FormFields(body.joined(separator: "&")), formatter: formatter,
                                                     calendar: Self.calendar, now: WebTestFixture.now)
                #expect(sample.endDate >= sample.startDate)
                switch kind {
                case .quantity(let type):
                    let quantity = (sample as? HKQuantitySample)?.quantity.doubleValue(for: type.defaultDisplayUnit)
                    #expect(quantity?.isFinite == true)
                case .category: #expect(sample is HKCategorySample)
                case .bloodPressure: #expect((sample as? HKCorrelation)?.objects.count == 2)
                case .workout: #expect((sample as? HKWorkout).map { $0.duration > 0 } == true)
                }
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
