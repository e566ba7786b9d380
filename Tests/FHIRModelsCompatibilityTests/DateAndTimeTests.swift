import Foundation
import ModelsR4
import Testing

/// FHIRModels' HowTo "Date & Time", and its `asNSDate()`/`init(date:timeZone:)` conversions.
@Suite struct DateAndTimeTests {
    @Test func dateTimeFromAString() throws {
        let dateTimeString = "2020-03-12T12:33:54.6543-06:00"
        let dateTime = try DateTime(dateTimeString)
        #expect(dateTime.date.year == 2020)
        #expect(dateTime.time?.minute == 33)
        #expect(dateTime.timeZone == TimeZone(secondsFromGMT: -6 * 3600))
        #expect(dateTime.time?.second == Decimal(string: "54.6543"))
        #expect(dateTime.originalTimeZoneString == "-06:00")
        #expect(dateTime.description == dateTimeString)
    }

    @Test func invalidDatesAreErrors() {
        for text in ["2020-02-30", "2020-03-12T12:33", "12/03/2020"] {
            #expect(throws: (any Error).self) { try DateTime(text) }
        }
    }

    @Test func conversionsToAndFromFoundationDates() throws {
        let text = "2020-03-12T12:33:54-06:00"
        let dateTime = try DateTime(text)
        let date = try dateTime.asNSDate()
        #expect(date.timeIntervalSince1970 == 1_584_038_034)
        let utc = try #require(TimeZone(secondsFromGMT: 0))
        let back = try DateTime(date: date, timeZone: utc)
        #expect(back.description == "2020-03-12T18:33:54Z")
        #expect(try back.compare(dateTime) == .orderedSame)
        #expect(try FHIRDate(date: date, timeZone: utc) == FHIRDate(year: 2020, month: 3, day: 12))
        #expect(try FHIRTime(date: date, timeZone: utc) == FHIRTime(hour: 18, minute: 33, second: 54))
        let instant = try Instant(date: date, timeZone: utc)
        #expect(try instant.asNSDate() == date)
        #expect(instant.date == InstantDate(year: 2020, month: 3, day: 12))
    }

    @Test func buildingDatesFromComponents() throws {
        var dateTime = DateTime(date: FHIRDate(year: 2020, month: 3, day: 12),
                                time: FHIRTime(hour: 12, minute: 33, second: 54),
                                timezone: TimeZone(secondsFromGMT: 3600))
        #expect(dateTime.description == "2020-03-12T12:33:54+01:00")
        dateTime.timeZone = TimeZone(secondsFromGMT: 0)
        #expect(dateTime.description == "2020-03-12T12:33:54Z")
        let earlier: DateTime = "2020-03-12T11:00:00Z"
        #expect(earlier < dateTime)
        var observation = Observation(code: CodeableConcept(text: "x"), status: FHIRPrimitive(.final))
        observation.effective = .dateTime(FHIRPrimitive(dateTime))
        observation.issued = FHIRPrimitive(Instant(date: InstantDate(year: 2020, month: 3, day: 12),
                                                  time: FHIRTime(hour: 13, minute: 0, second: 0),
                                                  timezone: TimeZone(secondsFromGMT: 0) ?? .gmt))
        #expect(observation.issued?.value?.description == "2020-03-12T13:00:00Z")
    }
}
