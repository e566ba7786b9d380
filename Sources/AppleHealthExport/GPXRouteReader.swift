import CommonSupport
import Foundation
import OpenHealthKit

/// Reads the track points of a workout route's GPX file, as the Health app writes them in an
/// export's `workout-routes/` folder: `trkpt` elements with `lat` and `lon`, an `ele` and a
/// `time`, and Apple's `extensions` `speed`, `course`, `hAcc` and `vAcc`.
///
/// The file is read byte by byte by a hand-written reader (`GPXByteReader`, which lists what
/// of XML it reads): only the point being read and the locations read so far are held. Refused
/// with an ``AppleHealthExportError``, never a crash: XML that is not well-formed or ends early
/// (`malformedXML`), any document type declaration, so no entity can expand
/// (`entityDeclaration`), more than ``maximumPoints`` points, nesting deeper than 32 elements
/// or element text longer than 256 bytes, a start tag with more than 64 attributes or more
/// than 64 namespace prefixes declared at once (`tooLarge`), and no point or a point without a
/// valid coordinate or time (`invalidElement`). Lines in the errors are the GPX file's. Missing
/// optional values read as CoreLocation's "unknown": altitude 0 with vertical accuracy -1,
/// course and speed -1. Numbers and times are the values Foundation's `XMLParser` path gave
/// for the same text, bit for bit (the tests compare the two).
public struct GPXRouteReader: Sendable {
    /// The most track points a route may have.
    public var maximumPoints: Int

    /// Creates a reader.
    public init(maximumPoints: Int = 1_000_000) {
        self.maximumPoints = maximumPoints
    }

    /// The locations of the file's track points, in file order.
    public func locations(in data: Data) throws(AppleHealthExportError) -> [CLLocation] {
        switch GPXByteReader.read(data, maximumPoints: maximumPoints).result {
        case .success(let locations):
            return locations
        case .failure(let error):
            // A declaration anywhere in the file is refused as one, whatever else went wrong first.
            if error.kind != .entityDeclaration, Self.hasDocumentType(data) {
                throw AppleHealthExportError(.entityDeclaration, "the GPX file declares a document type, which routes never do")
            }
            throw error
        }
    }

    /// Whether `<!DOCTYPE` or `<!ENTITY` occurs anywhere in the bytes.
    static func hasDocumentType(_ data: Data) -> Bool {
        let patterns = [Array("<!DOCTYPE".utf8), Array("<!ENTITY".utf8)]
        return data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Bool in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard bytes.count >= 8 else { return false }
            for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "<") {
                for pattern in patterns where index + pattern.count <= bytes.count {
                    if (0..<pattern.count).allSatisfy({ bytes[index + $0] == pattern[$0] }) { return true }
                }
            }
            return false
        }
    }

    /// A GPX time: ISO 8601 in UTC or with an offset, with or without fractional seconds. The
    /// form Apple's routes write (`2020-10-04T07:31:00Z`, or with an offset such as `+02:00`, no
    /// fraction, a year from 1700) is read by `plainSeconds(_:)`; any other text goes to
    /// Foundation's formatters, which on Linux build their ICU formatters on every call (about
    /// two thirds of a re-import's time went there, a route point at a time).
    static func date(_ text: String) -> Date? {
        if let seconds = plainSeconds(text) { return Date(timeIntervalSince1970: Double(seconds)) }
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    /// `text` without its surrounding white space and newlines: as it is when it starts and ends
    /// with a visible ASCII character (Apple's routes: `<time>2020-10-04T07:31:00Z</time>`), so
    /// only other text pays for Foundation's `trimmingCharacters(in:)` (a quarter of a re-import's
    /// time went there, per field of every point).
    static func trimmed(_ text: String) -> String {
        if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Seconds since 1970 of `YYYY-MM-DDThh:mm:ssZ` or `YYYY-MM-DDThh:mm:ss±hh:mm` with every
    /// field in range and a year from 1700 (earlier years go to the formatters, whose calendar is
    /// Julian before 1582); nil for any other text, which ``date(_:)`` then gives to Foundation.
    static func plainSeconds(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { plainSeconds($0) }
    }

    /// The seconds of `plainSeconds(_:)` read from UTF-8 bytes.
    static func plainSeconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count == 20 || bytes.count == 25 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<(start + count) {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              year >= 1700, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var offset = 0
        if bytes.count == 20 {
            guard bytes[19] == UInt8(ascii: "Z") else { return nil }
        } else {
            guard bytes[19] == UInt8(ascii: "+") || bytes[19] == UInt8(ascii: "-"), bytes[22] == UInt8(ascii: ":"),
                  let offsetHours = number(20, 2), let offsetMinutes = number(23, 2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offset = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[19] == UInt8(ascii: "+") ? 1 : -1)
        }
        return CivilCalendar.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    }
}
