@testable import AppleHealthExport
import Foundation
import OpenHealthKit
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The reader GPX routes had before ``GPXByteReader``: Foundation's `XMLParser` with the delegate
/// `GPXRouteReader` used (as it was at b9202e0), kept here only as the oracle the byte reader is
/// compared with.
enum XMLParserGPXOracle {
    static func locations(in data: Data, maximumPoints: Int = 1_000_000) throws(AppleHealthExportError) -> [CLLocation] {
        if GPXRouteReader.hasDocumentType(data) {
            throw AppleHealthExportError(.entityDeclaration, "the GPX file declares a document type, which routes never do")
        }
        // `<?target?>` would crash Foundation's parser on Linux (``InstructionFilter``).
        var filter = InstructionFilter()
        let parser = XMLParser(data: Data(filter.apply([UInt8](data))))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let delegate = OracleDelegate(maximumPoints: maximumPoints)
        parser.delegate = delegate
        let finished = parser.parse()
        if let failure = delegate.failure { throw failure }
        guard finished, delegate.closedRoot else {
            throw AppleHealthExportError(.malformedXML, line: parser.lineNumber > 0 ? parser.lineNumber : nil, "the GPX file is not well-formed or ends early")
        }
        guard !delegate.locations.isEmpty else { throw AppleHealthExportError(.invalidElement, "the GPX file has no track point") }
        return delegate.locations
    }
}

private final class OracleDelegate: NSObject, XMLParserDelegate {
    let maximumPoints: Int
    var locations: [CLLocation] = []
    var failure: AppleHealthExportError?
    var closedRoot = false
    private var depth = 0
    private var point: OraclePointText?
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
            var values = OraclePointText()
            if let lat = attributeDict["lat"] { values.lat = String(lat.prefix(Self.maximumText)) }
            if let lon = attributeDict["lon"] { values.lon = String(lon.prefix(Self.maximumText)) }
            point = values
        } else if point != nil, OraclePointText.isField(elementName) {
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
        if collecting, OraclePointText.isField(elementName) {
            point?.set(elementName, GPXRouteReader.trimmed(text))
            collecting = false
        } else if elementName == "trkpt", let values = point {
            point = nil
            guard let location = Self.location(values) else { return fail(parser, .invalidElement, "a GPX track point has no valid coordinate or time") }
            locations.append(location)
        }
    }

    private static func location(_ values: OraclePointText) -> CLLocation? {
        func number(_ text: String?) -> Double? {
            guard let text, let value = Double(text), value.isFinite else { return nil }
            return value
        }
        guard let latitude = number(values.lat), let longitude = number(values.lon), let time = values.time.flatMap(GPXRouteReader.date) else {
            return nil
        }
        let coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        guard CLLocationCoordinate2DIsValid(coordinate) else { return nil }
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

private struct OraclePointText {
    var lat: String?
    var lon: String?
    var ele: String?
    var time: String?
    var speed: String?
    var course: String?
    var hAcc: String?
    var vAcc: String?

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
