import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("GPX routes of an Apple Health export")
struct GPXRouteReaderTests {
    static func read(_ text: String, maximumPoints: Int = 1_000_000) throws(AppleHealthExportError) -> [CLLocation] {
        try GPXRouteReader(maximumPoints: maximumPoints).locations(in: Data(text.utf8))
    }

    static let valid = AppleHealthExportGenerator.gpx(AppleHealthExportGenerator.routePoints(count: 5, start: 1_601_791_200))

    @Test("Apple's track points read with coordinate, elevation, time and the speed, course and accuracy extensions")
    func applePoints() throws {
        let points = AppleHealthExportGenerator.routePoints(count: 5, start: 1_601_791_200)
        let locations = try Self.read(Self.valid)
        #expect(locations.count == 5)
        for (location, point) in zip(locations, points) {
            #expect(location.coordinate == CLLocationCoordinate2D(latitude: point.latitude, longitude: point.longitude))
            #expect(location.altitude == point.elevation && location.speed == point.speed && location.course == point.course)
            #expect(location.horizontalAccuracy == point.horizontalAccuracy && location.verticalAccuracy == point.verticalAccuracy)
            #expect(location.timestamp == Date(timeIntervalSince1970: TimeInterval(point.time)))
        }
        // Fractional seconds and offsets; missing optional values read as CoreLocation's "unknown".
        let minimal = try Self.read("""
            <gpx><trk><trkseg><trkpt lat="-33.9" lon="151.2"><time>2020-10-04T07:00:00.250+01:00</time></trkpt></trkseg></trk></gpx>
            """)
        let only = try #require(minimal.first)
        #expect(only.timestamp == Date(timeIntervalSince1970: 1_601_791_200.25))
        #expect(only.verticalAccuracy < 0 && only.speed < 0 && only.course < 0)
    }

    @Test("Hostile and broken files are refused with a typed error")
    func refusals() {
        func kind(_ text: String, maximumPoints: Int = 1_000_000) -> AppleHealthExportError.Kind? {
            do { _ = try Self.read(text, maximumPoints: maximumPoints); return nil } catch { return error.kind }
        }
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <gpx><trk><trkseg><trkpt lat="1" lon="1"><ele>&b;</ele><time>2020-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>
            """
        #expect(kind(laughs) == .entityDeclaration)
        #expect(kind("<!DOCTYPE gpx SYSTEM \"file:///etc/passwd\"><gpx/>") == .entityDeclaration)
        #expect(kind(String(Self.valid.prefix(Self.valid.utf8.count / 2))) == .malformedXML)
        #expect(kind("<kml><trkpt lat=\"1\" lon=\"1\"/></kml>") == .malformedXML)
        #expect(kind("<gpx><trk></trk></gpx>") == .invalidElement)
        #expect(kind("<gpx><trkpt lat=\"91\" lon=\"1\"><time>2020-01-01T00:00:00Z</time></trkpt></gpx>") == .invalidElement)
        #expect(kind("<gpx><trkpt lat=\"1\" lon=\"1\"></trkpt></gpx>") == .invalidElement)
        #expect(kind("<gpx><trkpt lat=\"1\" lon=\"1\"><time>yesterday</time></trkpt></gpx>") == .invalidElement)
        #expect(kind("<gpx><trkpt lat=\"1\" lon=\"1\"><ele>high</ele><time>2020-01-01T00:00:00Z</time></trkpt></gpx>") == .invalidElement)
        #expect(kind("<gpx><trkpt lat=\"1\" lon=\"1\"><ele>\(String(repeating: "9", count: 10_000))</ele></trkpt></gpx>") == .tooLarge)
        #expect(kind("<gpx><trkpt lat=\"\(String(repeating: "1", count: 1 << 20))\" lon=\"1\"><time>2020-01-01T00:00:00Z</time></trkpt></gpx>")
                == .invalidElement)
        #expect(kind(String(repeating: "<gpx>", count: 40) + String(repeating: "</gpx>", count: 40)) == .tooLarge)
        #expect(kind(Self.valid, maximumPoints: 4) == .tooLarge)
        #expect(kind("") == .malformedXML)
    }

    @Test("Random damage to a valid file gives locations or an AppleHealthExportError, never a crash", arguments: [UInt64(1), 2, 3, 4])
    func fuzz(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let original = Array(Self.valid.utf8)
        let alphabet = Array("<>/=\"'&;!?[]-: 0123456789.abcdefghijklmnopqrstuvwxyz\n".utf8) + [0, 0xFF, 0xC3]
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<random.int(1...12) {
                switch random.below(4) {
                case 0: bytes[random.below(bytes.count)] = alphabet[random.below(alphabet.count)]
                case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: random.below(bytes.count))
                case 2: if bytes.count > 1 { bytes.remove(at: random.below(bytes.count)) }
                default: bytes = Array(bytes.prefix(random.below(bytes.count) + 1))
                }
            }
            do {
                let locations = try GPXRouteReader().locations(in: Data(bytes))
                #expect(!locations.isEmpty)
                #expect(locations.allSatisfy { CLLocationCoordinate2DIsValid($0.coordinate) && $0.timestamp.timeIntervalSince1970.isFinite })
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
