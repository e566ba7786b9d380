import Foundation
import OpenHealthKit

/// Reads the `HeartRateVariabilityMetadataList` of a heart-rate-variability `Record`: one
/// `InstantaneousBeatsPerMinute` element per beat, with the beat's local time of day
/// (`time="7:48:07.51 AM"`, or 24-hour `time="19:48:07.51"`) and the instantaneous rate. HealthKit
/// keeps these beats as the heartbeat series (`HKHeartbeatSeriesSample`) recorded with the
/// HRV sample, so they become one, starting at the record's start.
enum HeartbeatListReader {
    /// The name of the list element.
    static let listName = "HeartRateVariabilityMetadataList"

    /// The beats of `list`, as times since `startText` (the record's `startDate`, in the
    /// export's `2019-06-25 09:36:02 -0700` form, whose local time of day the beat times share):
    /// a beat earlier in the day than the start belongs to the next day. Nil when the list holds
    /// no readable beat; `unreadable` counts the beats that were skipped.
    static func beats(_ list: ExportElement, startText: String, unreadable: inout Int) -> [(timeSinceStart: TimeInterval, precededByGap: Bool)]? {
        guard let startOfDay = secondsOfDay(startDate: startText) else {
            unreadable += list.children.count
            return nil
        }
        var beats: [(timeSinceStart: TimeInterval, precededByGap: Bool)] = []
        for child in list.children {
            guard child.name == "InstantaneousBeatsPerMinute", let text = child["time"], let time = secondsOfDay(time: text) else {
                unreadable += 1
                continue
            }
            var offset = time - startOfDay
            if offset < -60 { offset += 86_400 }   // past midnight
            beats.append((max(0, offset), false))
        }
        return beats.isEmpty ? nil : beats.sorted { $0.timeSinceStart < $1.timeSinceStart }
    }

    /// The local time of day of an export date (`2019-06-25 09:36:02 -0700`), in seconds.
    static func secondsOfDay(startDate text: String) -> TimeInterval? {
        let bytes = Array(text.utf8)
        guard bytes.count == 25, bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        guard let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
              hour < 24, minute < 60, second < 61 else { return nil }
        return TimeInterval(hour * 3_600 + minute * 60 + second)
    }

    /// A time of day such as `7:48:07.51 AM`, `12:01:00.1 PM` or `19:48:07.51`, in seconds.
    static func secondsOfDay(time text: String) -> TimeInterval? {
        var clock = trimmed(Substring(text))
        var meridiem: String?
        for suffix in ["AM", "PM", "am", "pm"] where clock.hasSuffix(suffix) {
            meridiem = suffix.uppercased()
            clock = trimmed(clock.dropLast(2))
        }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = number(Array(parts[0].utf8)[...]), let minute = number(Array(parts[1].utf8)[...]),
              let seconds = Double(parts[2]), seconds.isFinite, seconds >= 0, seconds < 61, minute < 60 else { return nil }
        var hours = hour
        switch meridiem {
        case "AM"?:
            guard (1...12).contains(hour) else { return nil }
            hours = hour == 12 ? 0 : hour
        case "PM"?:
            guard (1...12).contains(hour) else { return nil }
            hours = hour == 12 ? 12 : hour + 12
        default:
            guard hour < 24 else { return nil }
        }
        return TimeInterval(hours * 3_600 + minute * 60) + seconds
    }

    /// `text` as `trimmingCharacters(in: .whitespaces)` leaves it, without bridging each beat's time to NSString when only
    /// plain spaces surround visible ASCII (`7:48:07.51 AM`); other text goes to Foundation.
    static func trimmed(_ text: Substring) -> String {
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 { start = utf8.index(after: start) }
        while start < end, utf8[utf8.index(before: end)] == 0x20 { end = utf8.index(before: end) }
        if start < end, (0x21...0x7E).contains(utf8[start]), (0x21...0x7E).contains(utf8[utf8.index(before: end)]) {
            return String(text[start..<end])
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 2 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
