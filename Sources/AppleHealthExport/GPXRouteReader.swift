import CommonSupport
import Foundation
import OpenHealthKit
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the track points of a workout route's GPX file, as the Health app writes them in an
/// export's `workout-routes/` folder: `trkpt` elements with `lat` and `lon`, an `ele` and a
/// `time`, and Apple's `extensions` `speed`, `course`, `hAcc` and `vAcc`.
///
/// The parse is event-driven (SAX): only the point being read and the locations read so far
/// are held. Refused with an ``AppleHealthExportError``, never a crash: XML that is not
/// well-formed or ends early (`malformedXML`), any document type declaration, so no entity can
/// expand (`entityDeclaration`), more than ``maximumPoints`` points, nesting deeper than 32
/// elements or element text longer than 256 bytes (`tooLarge`), and no point or a point without
/// a valid coordinate or time (`invalidElement`). Lines in the errors are the GPX file's. Missing optional values read as
/// CoreLocation's "unknown": altitude 0 with vertical accuracy -1, course and speed -1.
public struct GPXRouteReader: Sendable {
    /// The most track points a route may have.
    public var maximumPoints: Int

    /// Creates a reader.
    public init(maximumPoints: Int = 1_000_000) {
        self.maximumPoints = maximumPoints
    }

    /// The locations of the file's track points, in file order.
    public func locations(in data: Data) throws(AppleHealthExportError) -> [CLLocation] {
        if Self.hasDocumentType(data) {
            throw AppleHealthExportError(.entityDeclaration, "the GPX file declares a document type, which routes never do")
        }
        // `<?target?>` would crash Foundation's parser on Linux (``InstructionFilter``).
        var filter = InstructionFilter()
        let parser = XMLParser(data: Data(filter.apply([UInt8](data))))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let delegate = GPXDelegate(maximumPoints: maximumPoints)
        parser.delegate = delegate
        let finished = parser.parse()
        if let failure = delegate.failure { throw failure }
        guard finished, delegate.closedRoot else {
            throw AppleHealthExportError(.malformedXML, line: parser.lineNumber > 0 ? parser.lineNumber : nil, "the GPX file is not well-formed or ends early")
        }
        guard !delegate.locations.isEmpty else { throw AppleHealthExportError(.invalidElement, "the GPX file has no track point") }
        return delegate.locations
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
    /// fraction, a year from 1700) is read by ``plainSeconds(_:)``; any other text goes to
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
        return text.withUTF8 { bytes -> Int? in
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
}

private final class GPXDelegate: NSObject, XMLParserDelegate {
    let maximumPoints: Int
    var locations: [CLLocation] = []
    var failure: AppleHealthExportError?
    var closedRoot = false
    private var depth = 0
    private var point: PointText?
    private var text = ""
    private var collecting = false
    private static let maximumText = 256
    private static let maximumDepth = 32

    init(maximumPoints: Int) {
        self.maximumPoints = maximumPoints
    }

    private func fail(_ parser: XMLParser, _ kind: AppleHealthExportError.Kind, _ detail: String) {
        guard failure == nil else { return }
        failure = AppleHealthExportError(kind, line: parser.lineNumber > 0 ? parser.lineNumber : nil, detail)
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                attributes attributeDict: [String: String] = [:]) {
        guard failure == nil else { return }
        depth += 1
        guard depth <= Self.maximumDepth else { return fail(parser, .tooLarge, "the GPX file's elements are nested too deeply") }
        if depth == 1, elementName != "gpx" { return fail(parser, .malformedXML, "the GPX file's root element is not gpx") }
        if elementName == "trkpt" {
            guard point == nil else { return fail(parser, .invalidElement, "a GPX track point is inside another") }
            guard locations.count < maximumPoints else { return fail(parser, .tooLarge, "the GPX route has more than \(maximumPoints) points") }
            var values = PointText()
            if let lat = attributeDict["lat"] { values.lat = String(lat.prefix(Self.maximumText)) }
            if let lon = attributeDict["lon"] { values.lon = String(lon.prefix(Self.maximumText)) }
            point = values
        } else if point != nil, PointText.isField(elementName) {
            collecting = true
            text = ""
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard failure == nil, collecting else { return }
        text += string
        if text.utf8.count > Self.maximumText { fail(parser, .tooLarge, "a GPX element's text is too long") }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard failure == nil else { return }
        depth -= 1
        if depth == 0 { closedRoot = true }
        if collecting, PointText.isField(elementName) {
            point?.set(elementName, GPXRouteReader.trimmed(text))
            collecting = false
        } else if elementName == "trkpt", let values = point {
            point = nil
            guard let location = Self.location(values) else { return fail(parser, .invalidElement, "a GPX track point has no valid coordinate or time") }
            locations.append(location)
        }
    }

    private static func location(_ values: PointText) -> CLLocation? {
        func number(_ text: String?) -> Double? {
            guard let text, let value = Double(text), value.isFinite else { return nil }
            return value
        }
        guard let latitude = number(values.lat), let longitude = number(values.lon), let time = values.time.flatMap(GPXRouteReader.date) else {
            return nil
        }
        let coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        guard CLLocationCoordinate2DIsValid(coordinate) else { return nil }
        // A value present but unreadable makes the point invalid rather than silently unknown.
        let (altitude, speed, course) = (number(values.ele), number(values.speed), number(values.course))
        let (horizontal, vertical) = (number(values.hAcc), number(values.vAcc))
        func unreadable(_ text: String?, _ value: Double?) -> Bool { text != nil && value == nil }
        if unreadable(values.ele, altitude) || unreadable(values.speed, speed) || unreadable(values.course, course)
            || unreadable(values.hAcc, horizontal) || unreadable(values.vAcc, vertical) { return nil }
        return CLLocation(coordinate: coordinate, altitude: altitude ?? 0, horizontalAccuracy: horizontal ?? 0,
                          verticalAccuracy: vertical ?? (altitude == nil ? -1 : 0), course: course ?? -1,
                          courseAccuracy: -1, speed: speed ?? -1, speedAccuracy: -1, timestamp: time)
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(parser, .entityDeclaration, "the GPX file declares entities, which routes never do")
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        fail(parser, .malformedXML, "the GPX file is not well-formed or ends early")
    }
}

/// The text of one track point's attributes and fields, as read (a field read twice keeps the last).
private struct PointText {
    var lat: String?
    var lon: String?
    var ele: String?
    var time: String?
    var speed: String?
    var course: String?
    var hAcc: String?
    var vAcc: String?

    /// Whether a point's child element of this name is one of the fields a location reads.
    static func isField(_ name: String) -> Bool {
        switch name {
        case "ele", "time", "speed", "course", "hAcc", "vAcc": return true
        default: return false
        }
    }

    mutating func set(_ name: String, _ text: String) {
        switch name {
        case "ele": ele = text
        case "time": time = text
        case "speed": speed = text
        case "course": course = text
        case "hAcc": hAcc = text
        case "vAcc": vAcc = text
        default: break
        }
    }
}
