import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

struct StatisticsIntervalGridTests {
    typealias Support = StatisticsTestSupport

    @Test func dailyIntervalsAtMidnight() throws {
        let calendar = try Support.calendar("America/New_York")
        let grid = try Support.dailyGrid(calendar)
        // 2024-01-01 00:00 EST = 05:00 UTC; the first interval is one full day.
        let first = try grid.interval(at: 0)
        #expect(first.start == (try Support.date(calendar, 2024, 1, 1)))
        #expect(first.duration == 86_400)
        #expect(try grid.index(containing: Support.date(calendar, 2024, 1, 1)) == 0)
        #expect(try grid.index(containing: Support.date(calendar, 2024, 1, 1, 23, 59, 59)) == 0)
        #expect(try grid.index(containing: Support.date(calendar, 2024, 1, 2)) == 1)
        // 2024-07-04 is day 185 of the year (31+29+31+30+31+30 = 182 days before July, +3).
        #expect(try grid.index(containing: Support.date(calendar, 2024, 7, 4, 12)) == 185)
    }

    @Test func negativeIndicesBeforeTheAnchor() throws {
        let calendar = try Support.calendar("America/New_York")
        let grid = try Support.dailyGrid(calendar, 2024, 1, 10)
        // 2024-01-07 12:00 is three days before the anchor day.
        let index = try grid.index(containing: Support.date(calendar, 2024, 1, 7, 12))
        #expect(index == -3)
        let interval = try grid.interval(at: index)
        #expect(interval.start == (try Support.date(calendar, 2024, 1, 7)))
        #expect(interval.end == (try Support.date(calendar, 2024, 1, 8)))
        // The instant just before the anchor is in interval -1.
        #expect(try grid.index(containing: Support.date(calendar, 2024, 1, 10).addingTimeInterval(-0.001)) == -1)
        // 2023-12-31 is 10 days before 2024-01-10.
        #expect(try grid.index(containing: Support.date(calendar, 2023, 12, 31, 5)) == -10)
    }

    @Test func daylightSavingDaysInNewYork() throws {
        let calendar = try Support.calendar("America/New_York")
        let grid = try Support.dailyGrid(calendar)
        // 2024-03-10: clocks jump 02:00 EST -> 03:00 EDT, so the day lasts 23 h = 82,800 s.
        let spring = try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 3, 10, 12)))
        #expect(spring.start == (try Support.date(calendar, 2024, 3, 10)))
        #expect(spring.duration == 82_800)
        // 2024-11-03: clocks fall back 02:00 EDT -> 01:00 EST, so the day lasts 25 h = 90,000 s.
        let autumn = try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 11, 3, 12)))
        #expect(autumn.start == (try Support.date(calendar, 2024, 11, 3)))
        #expect(autumn.duration == 90_000)
        // The days around them are 24 h.
        #expect(try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 3, 11, 12))).duration == 86_400)
        #expect(try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 11, 2, 12))).duration == 86_400)
    }

    @Test func daylightSavingDaysInBerlin() throws {
        let calendar = try Support.calendar("Europe/Berlin")
        let grid = try Support.dailyGrid(calendar)
        // 2024-03-31: 02:00 CET -> 03:00 CEST (23 h); 2024-10-27: 03:00 CEST -> 02:00 CET (25 h).
        #expect(try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 3, 31, 12))).duration == 82_800)
        #expect(try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 10, 27, 12))).duration == 90_000)
        #expect(try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 10, 26, 12))).duration == 86_400)
    }

    @Test(arguments: ["America/New_York", "Europe/Berlin"])
    func hourlyIntervalsStay3600Seconds(_ zone: String) throws {
        let calendar = try Support.calendar(zone)
        let grid = try StatisticsIntervalGrid(
            anchorDate: Support.date(calendar, 2024, 1, 1),
            intervalComponents: DateComponents(hour: 1),
            calendar: calendar
        )
        // Every hour of both transition days (and the days around them) is 3600 s.
        for day in [(3, 9), (3, 10), (3, 31), (10, 27), (11, 3)] {
            let start = try grid.index(containing: Support.date(calendar, 2024, day.0, day.1))
            let intervals = try (start..<(start + 48)).map { k throws(StatisticsError) in try grid.interval(at: k) }
            #expect(intervals.allSatisfy { $0.duration == 3_600 })
            for (a, b) in zip(intervals, intervals.dropFirst()) {
                #expect(a.end == b.start)
            }
        }
        // The fixed-length shortcut agrees with Calendar's own arithmetic.
        let anchor = try Support.date(calendar, 2024, 1, 1)
        for k in [-10_000, -1, 0, 1, 1_656, 7_200, 8_000] {
            let expected = try #require(calendar.date(byAdding: DateComponents(hour: k), to: anchor))
            #expect(try grid.interval(at: k).start == expected)
        }
    }

    @Test func anchorAt0334() throws {
        // Apple's example: daily intervals anchored at 03:34 run 03:34 to 03:34.
        let calendar = try Support.calendar("America/New_York")
        let grid = try StatisticsIntervalGrid(
            anchorDate: Support.date(calendar, 2024, 1, 1, 3, 34),
            intervalComponents: DateComponents(day: 1),
            calendar: calendar
        )
        let early = try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 5, 5, 3, 33)))
        #expect(early.start == (try Support.date(calendar, 2024, 5, 4, 3, 34)))
        #expect(early.end == (try Support.date(calendar, 2024, 5, 5, 3, 34)))
        let onTime = try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 5, 5, 3, 34)))
        #expect(onTime.start == (try Support.date(calendar, 2024, 5, 5, 3, 34)))
        // Before the anchor: 2023-12-31 12:00 lies in [2023-12-31 03:34, 2024-01-01 03:34), index -1.
        #expect(try grid.index(containing: Support.date(calendar, 2023, 12, 31, 12)) == -1)
        #expect(try grid.index(containing: Support.date(calendar, 2024, 1, 1, 3, 33)) == -1)
        // [2024-03-09 03:34 EST, 2024-03-10 03:34 EDT) loses the skipped hour: 23 h.
        let spring = try grid.interval(at: grid.index(containing: Support.date(calendar, 2024, 3, 9, 12)))
        #expect(spring.duration == 82_800)
    }

    @Test func weeklyIntervalsAnchoredOnMonday() throws {
        let calendar = try Support.calendar("America/New_York")
        // 2024-01-01 was a Monday; Apple's weekly example anchors on Monday 03:00.
        let anchor = try Support.date(calendar, 2024, 1, 1, 3)
        let weekOfYear = try StatisticsIntervalGrid(
            anchorDate: anchor,
            intervalComponents: DateComponents(weekOfYear: 1),
            calendar: calendar
        )
        let sevenDays = try StatisticsIntervalGrid(
            anchorDate: anchor,
            intervalComponents: DateComponents(day: 7),
            calendar: calendar
        )
        // Sunday 2024-03-10 12:00 lies in the week Mon 2024-03-04 03:00 EST .. Mon 2024-03-11
        // 03:00 EDT: index 9 (63 days after the anchor), 7 days minus the skipped hour = 601,200 s.
        let date = try Support.date(calendar, 2024, 3, 10, 12)
        let index = try weekOfYear.index(containing: date)
        #expect(index == 9)
        let week = try weekOfYear.interval(at: index)
        #expect(week.start == (try Support.date(calendar, 2024, 3, 4, 3)))
        #expect(week.duration == 601_200)
        #expect(try sevenDays.interval(at: index) == week)
        // The week before the anchor: Mon 2023-12-25 03:00.
        #expect(try weekOfYear.interval(at: -1).start == (try Support.date(calendar, 2023, 12, 25, 3)))
    }

    @Test func monthEndAnchorMultipliesComponents() throws {
        let calendar = try Support.calendar("America/New_York")
        let grid = try StatisticsIntervalGrid(
            anchorDate: Support.date(calendar, 2024, 1, 31),
            intervalComponents: DateComponents(month: 1),
            calendar: calendar
        )
        // anchor + k months, clamped to the month's last day: never Feb 29 + 1 month = Mar 29.
        let starts = try (-2...3).map { k throws(StatisticsError) in try grid.interval(at: k).start }
        let expected = try [
            Support.date(calendar, 2023, 11, 30),
            Support.date(calendar, 2023, 12, 31),
            Support.date(calendar, 2024, 1, 31),
            Support.date(calendar, 2024, 2, 29),
            Support.date(calendar, 2024, 3, 31),
            Support.date(calendar, 2024, 4, 30),
        ]
        #expect(starts == expected)
        #expect(try grid.index(containing: Support.date(calendar, 2024, 3, 15)) == 1)
        #expect(try grid.index(containing: Support.date(calendar, 2024, 3, 31)) == 2)
        #expect(try grid.index(containing: Support.date(calendar, 2024, 3, 30, 23, 59)) == 1)
        // 2025-01-31 is 12 months later.
        #expect(try grid.index(containing: Support.date(calendar, 2025, 2, 1)) == 12)
    }

    @Test func monthlyAndQuarterlyIntervals() throws {
        let calendar = try Support.calendar("Europe/Berlin")
        let anchor = try Support.date(calendar, 2024, 1, 1)
        let monthly = try StatisticsIntervalGrid(
            anchorDate: anchor,
            intervalComponents: DateComponents(month: 1),
            calendar: calendar
        )
        // February 2024 has 29 days; March loses an hour to DST: 31 × 86,400 − 3,600 = 2,674,800.
        #expect(try monthly.interval(at: 1).duration == 29 * 86_400)
        #expect(try monthly.interval(at: 2).duration == 2_674_800)
        let quarterly = try StatisticsIntervalGrid(
            anchorDate: anchor,
            intervalComponents: DateComponents(quarter: 1),
            calendar: calendar
        )
        // A quarter is three months (Foundation alone would ignore `quarter`).
        #expect(try quarterly.interval(at: 1).start == (try Support.date(calendar, 2024, 4, 1)))
        #expect(try quarterly.interval(at: -1).start == (try Support.date(calendar, 2023, 10, 1)))
        #expect(try quarterly.index(containing: Support.date(calendar, 2024, 12, 31)) == 3)
    }

    @Test func intervalsFromToListsEveryOverlappingInterval() throws {
        let calendar = try Support.calendar("UTC")
        let grid = try Support.dailyGrid(calendar)
        // [Jan 1 12:00, Jan 4 00:00) overlaps Jan 1, 2 and 3; an end on a boundary excludes that day.
        let three = try grid.intervals(from: Support.date(calendar, 2024, 1, 1, 12), to: Support.date(calendar, 2024, 1, 4))
        #expect(
            three.map(\.start) == (try [Support.date(calendar, 2024, 1, 1), Support.date(calendar, 2024, 1, 2), Support.date(calendar, 2024, 1, 3)]))
        let four = try grid.intervals(from: Support.date(calendar, 2024, 1, 1, 12), to: Support.date(calendar, 2024, 1, 4, 0, 0, 1))
        #expect(four.count == 4)
        // Spanning the anchor backwards.
        let around = try grid.intervals(from: Support.date(calendar, 2023, 12, 30), to: Support.date(calendar, 2024, 1, 2))
        #expect(around.count == 3)
        #expect(around.first?.start == (try Support.date(calendar, 2023, 12, 30)))
        #expect(try grid.intervals(from: Support.date(calendar, 2024, 1, 5), to: Support.date(calendar, 2024, 1, 5)).isEmpty)
        #expect(try grid.intervals(from: Support.date(calendar, 2024, 1, 5), to: Support.date(calendar, 2024, 1, 4)).isEmpty)
    }

    @Test func indexAndIntervalAgreeOnRandomDates() throws {
        var random = Support.SplitMix64(seed: 7)
        let calendar = try Support.calendar("America/New_York")
        let anchor = try Support.date(calendar, 2024, 1, 31, 3, 34)
        let components = [
            DateComponents(day: 1), DateComponents(weekOfYear: 1), DateComponents(month: 1), DateComponents(month: 2, day: 3),
            DateComponents(year: 1), DateComponents(hour: 1), DateComponents(minute: 15), DateComponents(hour: 25, minute: 1),
        ]
        // 1990-01-01 to 2060-01-01 in reference-date seconds.
        let low = try Support.seconds(calendar, 1990, 1, 1)
        let high = try Support.seconds(calendar, 2060, 1, 1)
        for component in components {
            let grid = try StatisticsIntervalGrid(anchorDate: anchor, intervalComponents: component, calendar: calendar)
            for _ in 0..<300 {
                let date = Date(timeIntervalSinceReferenceDate: Double.random(in: low..<high, using: &random))
                let index = try grid.index(containing: date)
                let interval = try grid.interval(at: index)
                #expect(interval.start <= date && date < interval.end, "\(component) \(date)")
                #expect(interval.duration > 0)
            }
        }
    }

    @Test(arguments: [
        DateComponents(),
        DateComponents(day: 0),
        DateComponents(day: -1),
        DateComponents(day: 1, hour: -1),
        DateComponents(weekday: 2),
        DateComponents(era: 1),
        DateComponents(nanosecond: 1),
        DateComponents(month: Int.max - 1, quarter: 1),
    ])
    func invalidComponentsAreRejected(_ components: DateComponents) throws {
        let calendar = try Support.calendar("UTC")
        let error = try #require(
            Support.error { () throws(StatisticsError) in
                try StatisticsIntervalGrid(anchorDate: Date(timeIntervalSinceReferenceDate: 0), intervalComponents: components, calendar: calendar)
            }
        )
        #expect(error.code == .invalidIntervalComponents)
        #expect(error.intervalComponents == components)
    }

    @Test func rangeLimits() throws {
        let calendar = try Support.calendar("UTC")
        let seconds = try StatisticsIntervalGrid(
            anchorDate: Date(timeIntervalSinceReferenceDate: 0),
            intervalComponents: DateComponents(second: 1),
            calendar: calendar
        )
        // A year of one-second intervals (31,622,400 in 2024) exceeds the 2,000,000 limit.
        let yearStart = try Support.date(calendar, 2024, 1, 1)
        let yearEnd = try Support.date(calendar, 2025, 1, 1)
        let tooMany = Support.error { () throws(StatisticsError) in
            try seconds.intervals(from: yearStart, to: yearEnd)
        }
        #expect(tooMany?.code == .tooManyIntervals)
        let daily = try Support.dailyGrid(calendar)
        let farAway = Support.error { () throws(StatisticsError) in
            try daily.index(containing: Date(timeIntervalSinceReferenceDate: 1e13))
        }
        #expect(farAway?.code == .dateOutOfRange)
        let hugeIndex = Support.error { () throws(StatisticsError) in try daily.interval(at: Int.max / 2) }
        #expect(hugeIndex?.code == .dateOutOfRange)
        // Dates at the supported edges still work.
        #expect(try daily.interval(at: daily.index(containing: .distantFuture)).contains(.distantFuture))
        #expect(try daily.index(containing: .distantPast) < 0)
    }
}
