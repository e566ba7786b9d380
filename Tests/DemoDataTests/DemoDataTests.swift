import DemoData
import Foundation
import OpenHealthKit
import Testing

/// `health demo`'s generator: a day's data depends on its date alone, so a demo run on a later
/// day, into a kept store, finds the days it shares with the earlier run already there.
@Suite("The demo data")
struct DemoDataTests {
    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }

    /// Every sample of the data by sync identifier, with its value (quantity in its type's
    /// display unit, category value, or the dates of a workout or correlation).
    static func values(_ data: DemoData) -> [String: String] {
        var values: [String: String] = [:]
        for sample in data.phone + data.watch + data.watchWorkouts.map(\.workout) {
            guard let identifier = sample.metadata?[HKMetadataKeySyncIdentifier] as? String else { continue }
            switch sample {
            case let quantity as HKQuantitySample:
                values[identifier] = "\(quantity.quantity.doubleValue(for: quantity.quantityType.defaultDisplayUnit))"
            case let category as HKCategorySample:
                values[identifier] = "\(category.value) \(category.endDate.timeIntervalSince1970)"
            default:
                values[identifier] = "\(sample.startDate.timeIntervalSince1970) \(sample.endDate.timeIntervalSince1970)"
            }
        }
        return values
    }

    @Test("Windows ending a day apart share their common days sample for sample (same sync identifiers, same values); every sample has its own identifier")
    func sameDaySameData() throws {
        let end = Date(timeIntervalSince1970: 1_795_132_800)   // 2026-11-20T00:00:00Z
        let earlier = DemoData.generate(days: 3, endingAt: end, calendar: Self.calendar, syncIdentifierPrefix: "demo:")
        let later = DemoData.generate(days: 3, endingAt: end.addingTimeInterval(86_400), calendar: Self.calendar, syncIdentifierPrefix: "demo:")
        let first = Self.values(earlier), second = Self.values(later)
        #expect(first.count == earlier.phone.count + earlier.watch.count + earlier.watchWorkouts.count)
        let shared = Set(first.keys).intersection(second.keys)
        // The earlier window is the 17th to the 19th, the later one the 18th to the 20th: they share
        // everything but the 17th, which a one-day window ending on the 18th generates alone.
        let seventeenth = Self.values(DemoData.generate(days: 1, endingAt: end.addingTimeInterval(-2 * 86_400), calendar: Self.calendar,
                                                        syncIdentifierPrefix: "demo:"))
        #expect(!seventeenth.isEmpty)
        #expect(shared == Set(first.keys).subtracting(seventeenth.keys))
        for identifier in shared { #expect(first[identifier] == second[identifier], "\(identifier)") }
        let again = Self.values(DemoData.generate(days: 3, endingAt: end, calendar: Self.calendar, syncIdentifierPrefix: "demo:"))
        #expect(again == first)
        // Without a prefix, no identifiers (the web benchmark's data).
        let plain = DemoData.generate(days: 1, endingAt: end, calendar: Self.calendar)
        #expect((plain.phone + plain.watch).allSatisfy { $0.metadata?[HKMetadataKeySyncIdentifier] == nil })
    }
}
