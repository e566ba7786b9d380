@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// The hand-written GPX reader against Foundation's `XMLParser` path it replaced
/// (``XMLParserGPXOracle``): the same locations, bit for bit, for every file the old path read.
@Suite("GPX routes read byte by byte")
struct GPXByteReaderTests {
    static func read(_ bytes: [UInt8], maximumPoints: Int = 1_000_000) -> Result<[CLLocation], AppleHealthExportError> {
        Result { () throws(AppleHealthExportError) in try GPXRouteReader(maximumPoints: maximumPoints).locations(in: Data(bytes)) }
    }

    static func oracle(_ bytes: [UInt8], maximumPoints: Int = 1_000_000) -> Result<[CLLocation], AppleHealthExportError> {
        Result { () throws(AppleHealthExportError) in try XMLParserGPXOracle.locations(in: Data(bytes), maximumPoints: maximumPoints) }
    }

    /// Every value of the locations as bits.
    static func bits(_ locations: [CLLocation]) -> [UInt64] {
        locations.flatMap { location in
            [location.coordinate.latitude, location.coordinate.longitude, location.altitude, location.horizontalAccuracy,
             location.verticalAccuracy, location.course, location.speed, location.timestamp.timeIntervalSince1970].map(\.bitPattern)
        }
    }

    /// A number as GPX writers might write it: Swift's shortest form, fixed six decimals, all
    /// seventeen digits, an exponent, leading zeros, a sign, a trailing point.
    static func numberText(_ value: Double, _ random: inout SplitMix64) -> String {
        switch random.below(9) {
        case 0: return "\(value)"
        case 1, 2: return String(format: "%.6f", value)
        case 3: return String(format: "%.17g", value)
        case 4: return String(format: "%.5e", value)
        case 5: return String(format: "%.\(random.int(0...25))f", value)
        case 6: return value < 0 ? String(format: "-00%.4f", -value) : String(format: "+%.3f", value)
        case 7: return String(format: "%.0f.", value)
        default: return String(format: "%.\(random.int(10...20))f", value) + String(repeating: "0", count: random.int(0...4))
        }
    }

    /// A route file with `count` random points, written in one of the many ways well-formed XML
    /// allows: either attribute order and quote, white space and line ends, comments, references,
    /// instructions, unknown elements, missing and repeated fields.
    static func route(count: Int, _ random: inout SplitMix64) -> String {
        let newline = random.chance(0.3) ? "\r\n" : "\n"
        var text = random.chance(0.2) ? "\u{FEFF}" : ""
        if random.chance(0.8) { text += random.chance(0.5) ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" : "<?xml version='1.0' standalone='yes'?>" }
        text += newline + "<!-- exported -->" + newline
        text += "<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:xsi=\"x\">" + newline
        text += " <metadata><time>2020-10-04T06:31:00Z</time></metadata>" + newline + " <trk><name>R &amp; B</name><trkseg>" + newline
        for _ in 0..<count {
            let quote = random.chance(0.8) ? "\"" : "'"
            func attribute(_ name: String, _ value: Double) -> String {
                var number = numberText(value, &random)
                if random.chance(0.05) { number = "&#\(number.utf8.first.map { Int($0) } ?? 48);" + number.dropFirst() }
                let equals = random.chance(0.9) ? "=" : " =\t"
                return "\(name)\(equals)\(quote)\(number)\(quote)"
            }
            let latitude = Double.random(in: -90...90, using: &random), longitude = Double.random(in: -180...180, using: &random)
            let attributes = random.chance(0.5) ? [attribute("lon", longitude), attribute("lat", latitude)]
                : [attribute("lat", latitude), attribute("lon", longitude)]
            text += "   <trkpt " + attributes.joined(separator: random.chance(0.9) ? " " : newline + "  ") + (random.chance(0.05) ? " xsi:y='1'" : "") + ">"
            func field(_ name: String, _ content: String) -> String {
                var content = content
                switch random.below(20) {
                case 0: content = " " + content + newline
                case 1: content = "\t" + content
                case 2: content = content.prefix(1) + "<!-- c -->" + content.dropFirst()
                case 3: content = "&#\(content.utf8.first.map { Int($0) } ?? 48);" + content.dropFirst()
                case 4: content = "<?pi data?>" + content
                default: break
                }
                return "<\(name)>\(content)</\(name)>"
            }
            var fields: [String] = []
            if random.chance(0.9) { fields.append(field("ele", numberText(Double.random(in: -400...9000, using: &random), &random))) }
            let seconds = random.int(0...4_102_444_800)
            switch random.below(20) {
            case 0: fields.append(field("time", GPXTimeTests.text(seconds: seconds, offsetMinutes: random.int(-14 * 4...14 * 4) * 15)))
            case 1: fields.append(field("time", GPXTimeTests.text(seconds: seconds, offsetMinutes: nil).dropLast() + ".250Z"))
            default: fields.append(field("time", GPXTimeTests.text(seconds: seconds, offsetMinutes: nil)))
            }
            var extensions: [String] = []
            for name in ["speed", "course", "hAcc", "vAcc"] where random.chance(0.9) {
                extensions.append(field(name, numberText(Double.random(in: 0...400, using: &random), &random)))
            }
            if random.chance(0.05) { extensions.append("<unknown a=\"b\">text</unknown>") }
            fields.shuffle(using: &random)
            extensions.shuffle(using: &random)
            text += fields.joined() + "<extensions>" + extensions.joined() + "</extensions>"
            if random.chance(0.03) { text += field("ele", "12.5") }
            text += random.chance(0.9) ? "</trkpt>" : "</trkpt >"
            text += newline
        }
        return text + "  </trkseg>" + newline + " </trk>" + newline + "</gpx>" + newline + (random.chance(0.2) ? "<!-- end -->" : "")
    }

    @Test("Generated routes, written every way XML allows, read as XMLParser read them, bit for bit", arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func generatedRoutes(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<12 {
            let bytes = Array(Self.route(count: random.int(1...60), &random).utf8)
            let expected = try Self.oracle(bytes).get()
            guard case .success(let read) = Self.read(bytes) else {
                Issue.record("refused \(Self.read(bytes)): \(String(decoding: bytes, as: UTF8.self))")
                continue
            }
            #expect(read.count == expected.count)
            #expect(Self.bits(read) == Self.bits(expected), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("The GPX files of the tests and of the generator read as XMLParser read them, bit for bit")
    func fixtures() throws {
        let files = [
            GPXRouteReaderTests.valid,
            AppleHealthExportGenerator.gpx(AppleHealthExportGenerator.fullRoute.points),
            AppleHealthExportGenerator.gpx(AppleHealthExportGenerator.routePoints(count: 3_000, start: 1_672_640_000)),
            """
            <gpx><trk><trkseg><trkpt lat="-33.9" lon="151.2"><time>2020-10-04T07:00:00.250+01:00</time></trkpt></trkseg></trk></gpx>
            """,
            // XMLParser's path read a coordinate's first 256 characters.
            "<gpx><trkpt lat=\"\(String(repeating: "0", count: 300))1.5\" lon=\"2.\(String(repeating: "1", count: 300))\">"
                + "<time>2020-10-04T07:00:00Z</time></trkpt></gpx>",
            // Apple's own form: fixed six decimals, lon before lat.
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <metadata>
              <time>2023-01-02T07:22:24Z</time>
             </metadata>
             <trk>
              <name>Route 2023-01-02 8:22am</name>
              <trkseg>
               <trkpt lon="8.562407" lat="47.384850"><ele>408.000000</ele><time>2023-01-02T06:27:29Z</time><extensions><speed>2.806000</speed>\
            <course>100.378650</course><hAcc>2.000000</hAcc><vAcc>1.200000</vAcc></extensions></trkpt>
               <trkpt lon="-8.562414" lat="-47.384872"><ele>-408.000530</ele><time>2023-01-02T06:27:30Z</time><extensions><speed>2.811031</speed>\
            <course>100.261344</course><hAcc>2.000000</hAcc><vAcc>1.200000</vAcc></extensions></trkpt>
              </trkseg>
             </trk>
            </gpx>
            """,
        ]
        for file in files {
            let bytes = Array(file.utf8)
            let expected = try Self.oracle(bytes).get()
            let read = try Self.read(bytes).get()
            #expect(read.count == expected.count && Self.bits(read) == Self.bits(expected))
        }
    }

    @Test("The words the reader matches names by are those names' bytes")
    func nameWords() {
        let words: [(String, UInt64)] = [("ele", GPXNames.ele), ("time", GPXNames.time), ("hAcc", GPXNames.hAcc), ("vAcc", GPXNames.vAcc),
                                         ("speed", GPXNames.speed), ("course", GPXNames.course), ("trkpt", GPXNames.trkpt)]
        for (name, word) in words { #expect(GPXNames.word(name) == word, "\(name)") }
        #expect(Set(words.map(\.1)).count == words.count)
    }

    @Test("Plain decimals read by hand give Double(String)'s value, bit for bit", arguments: [UInt64(7), 8])
    func plainDecimals(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var fast = 0
        for _ in 0..<20_000 {
            var text = random.chance(0.3) ? "-" : ""
            text += random.digits(random.int(1...17))
            if random.chance(0.8) { text += "." + random.digits(random.int(1...23)) }
            let read = Array(text.utf8).withUnsafeBufferPointer { GPXNumbers.plainDecimal($0) }
            if let read {
                fast += 1
                #expect(read.bitPattern == Double(text)?.bitPattern, "\(text)")
            }
            #expect(Array(text.utf8).withUnsafeBufferPointer { GPXNumbers.number($0) }?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
        #expect(fast > 5_000)
        for text in ["9007199254740992", "9007199254740993", "0.9007199254740993", "-0", "-0.0", "00.5", "1.0000000000000000000001",
                     "5.", ".5", "+5", "1e5", "0x1p3", "inf", "nan", "", "-", "1.2.3", " 1", "1 ", "١"] {
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBufferPointer { GPXNumbers.number($0) }?.bitPattern == Double(text).flatMap { $0.isFinite ? $0 : nil }?.bitPattern,
                    "\(text)")
        }
    }

    @Test("Damaged routes: where XMLParser read locations, the same locations; otherwise a typed refusal, never a trap", arguments: [UInt64(9), 10, 11])
    func damaged(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = Array("<>/=\"'&;#x!?[]-: 0123456789.eEabcdefghijklmnopqrstuvwxyzCDAT\r\n\t".utf8) + [0, 0x1F, 0xFF, 0xC3, 0xEF, 0xBB]
        let pieces = ["<!--", "-->", "<![CDATA[", "]]>", "&amp;", "&#10;", "&#x1F600;", "&bogus;", "<?pi ?>", "<?xml ?>", "<!DOCTYPE", "<trkpt>", "</trkpt>",
                      "<time>", "</time>", "\u{FEFF}", "é", "\u{00A0}"].map { Array($0.utf8) }
        var agreed = 0
        for _ in 0..<120 {
            var bytes = Array(Self.route(count: random.int(1...4), &random).utf8)
            for _ in 0..<random.int(1...6) {
                switch random.below(5) {
                case 0: bytes[random.below(bytes.count)] = alphabet[random.below(alphabet.count)]
                case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: random.below(bytes.count))
                case 2: if bytes.count > 1 { bytes.remove(at: random.below(bytes.count)) }
                case 3: bytes.insert(contentsOf: pieces[random.below(pieces.count)], at: random.below(bytes.count))
                default: bytes = Array(bytes.prefix(random.below(bytes.count) + 1))
                }
            }
            let read = Self.read(bytes)
            let cdata = bytes.count >= 9 && (0...(bytes.count - 9)).contains { bytes[$0..<($0 + 9)].elementsEqual("<![CDATA[".utf8) }
            switch (read, Self.oracle(bytes)) {
            case (.success(let locations), .success(let expected)):
                agreed += 1
                #expect(Self.bits(locations) == Self.bits(expected))
            case (.failure(let error), .failure(let expected)):
                agreed += 1
                // XMLParser stops at its first error where the byte reader may find another first; a refusal of the route's
                // content (tooLarge, invalidElement, entityDeclaration) is the same refusal.
                if expected.kind != .malformedXML, error.kind != .malformedXML, !cdata { #expect(error.kind == expected.kind) }
            case (.success, .failure(let expected)):
                // Only a CDATA section in a field (read as its text now, left out by XMLParser) or what libxml2 refuses that
                // XML allows may differ; the latter would show here.
                #expect(cdata && expected.kind == .invalidElement, "\(String(decoding: bytes, as: UTF8.self))")
            case (.failure(let error), .success):
                #expect(Bool(false), "refused \(error) what XMLParser read: \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(agreed > 60)
    }

    @Test("What Apple might write and XML allows: CDATA, references, a byte order mark, CR LF; other encodings refused")
    func xmlForms() throws {
        func kind(_ text: String) -> AppleHealthExportError.Kind? {
            if case .failure(let error) = Self.read(Array(text.utf8)) { return error.kind }
            return nil
        }
        let point = "<time>2020-01-01T00:00:00Z</time></trkpt></gpx>"
        let cdata = try Self.read(Array("<gpx><trkpt lat='1' lon='2'><ele><![CDATA[ 408.5 ]]></ele>\(point)".utf8)).get()
        #expect(cdata.first?.altitude == 408.5)
        let references = try Self.read(Array("<gpx><trkpt lat=\"&#52;7.5\" lon='&#x38;.25'><ele>&#52;0&#x38;</ele>\(point)".utf8)).get()
        #expect(references.first?.coordinate.latitude == 47.5 && references.first?.coordinate.longitude == 8.25 && references.first?.altitude == 408)
        let crlfText = "\u{FEFF}<?xml version=\"1.0\"?>\r\n<gpx>\r\n<trkpt\r\nlat='1'\r\nlon='2'>\r\n<ele>\r\n5\r\n</ele>\(point)\r\n"
        let crlf = try Self.read(Array(crlfText.utf8)).get()
        #expect(crlf.first?.altitude == 5)
        #expect(kind("<gpx><trkpt lat='1' lon='2'><ele>&amp;5</ele>\(point)") == .invalidElement)
        #expect(kind("<gpx><trkpt lat='1' lon='2'><ele>&bogus;</ele>\(point)") == .malformedXML)
        #expect(kind("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx><trkpt lat='1' lon='2'>\(point)") == .malformedXML)
        // `standalone` is exactly yes or no (libxml2 refused YES); encoding names are case-insensitive.
        #expect(kind("<?xml version='1.0' standalone='YES'?><gpx><trkpt lat='1' lon='2'>\(point)") == .malformedXML)
        #expect((try? Self.read(Array("<?xml version='1.0' encoding='utf-8' standalone='no'?><gpx><trkpt lat='1' lon='2'>\(point)".utf8)).get()) != nil)
        #expect(kind("<gpx><!-- <!DOCTYPE gpx> --><trkpt lat='1' lon='2'>\(point)") == .entityDeclaration)
        #expect(kind("<gpx><trkpt lat='1' lon='2'>\(point)<!ENTITY a 'b'>") == .entityDeclaration)
        #expect(kind("<gpx><trkpt lat='1' lon='2' lat='3'>\(point)") == .malformedXML)
        // Namespaces are not processed, but a prefix must be declared, as libxml2 required.
        #expect(kind("<gpx xmlns:a='u'><trkpt lat='1' lon='2' a:b='3'>\(point)") == nil)
        #expect(kind("<gpx><trkpt lat='1' lon='2' a:b='3'>\(point)") == .malformedXML)
        #expect(kind("<gpx><a:trkpt lat='1' lon='2' xmlns:a='u'><time>2020-01-01T00:00:00Z</time></a:trkpt><trkpt lat='1' lon='2'>\(point)") == nil)
        #expect(kind("<gpx><trkpt lat='1' lon='2' :b='3'>\(point)") == .malformedXML)
        #expect(kind("<gpx><trkpt lat='1' lon='2'><ele>5</ele>]]>\(point)") == .malformedXML)
        let many = (0..<65).map { "a\($0)='1'" }.joined(separator: " ")
        #expect(kind("<gpx \(many)><trkpt lat='1' lon='2'>\(point)") == .tooLarge)
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("<gpx/>".utf8).flatMap { (byte: UInt8) -> [UInt8] in [byte, 0] }
        if case .failure(let error) = Self.read(utf16) { #expect(error.kind == .malformedXML) } else { Issue.record("UTF-16 read") }
        // Lines in the errors are the file's.
        if case .failure(let error) = Self.read(Array("<gpx>\n<trk>\n<trkpt lat='1' lon='2'>\n</trkpt>\n</trk></gpx>".utf8)) {
            #expect(error.kind == .invalidElement && error.line == 4)
        } else {
            Issue.record("a point without a time was read")
        }
        if case .failure(let error) = Self.read(Array("<gpx>\r\n<trk>\r\n</trkk></gpx>".utf8)) {
            #expect(error.kind == .malformedXML && error.line == 3)
        } else {
            Issue.record("a mismatched end tag was read")
        }
    }

    @Test("The work is linear in the file's size, whatever the file holds")
    func linearWork() {
        func work(_ text: String) -> (bytes: Int, work: Int) {
            let data = Data(text.utf8)
            return (data.count, GPXByteReader.read(data, maximumPoints: 1_000_000).work)
        }
        let point = "<trkpt lat='1' lon='2'><time>2020-01-01T00:00:00Z</time></trkpt>"
        let shapes: [(Int) -> String] = [
            { "<gpx>" + String(repeating: point, count: $0) + "</gpx>" },
            { "<gpx>" + String(repeating: "<a>", count: $0) },
            { "<gpx>" + String(repeating: "x", count: $0 * 50) + point + "</gpx>" },
            { "<gpx><trkpt lat='" + String(repeating: "1", count: $0 * 50) + "' lon='1'/></gpx>" },
            { "<gpx>" + String(repeating: "<b " + (0..<60).map { "a\($0)=''" }.joined(separator: " ") + "/>", count: $0) + "</gpx>" },
            { "<gpx>" + String(repeating: "<b " + (0..<60).map { "\(UnicodeScalar(UInt8(97 + $0 % 26)))\($0 / 26)=''" }.joined(separator: " ") + "/>",
                               count: $0) },
            { "<gpx><!--" + String(repeating: "-<", count: $0 * 20) + "--></gpx>" },
            { "<gpx>" + String(repeating: "&#x00000000041;", count: $0 * 4) + "</gpx>" },
            { "<" + String(repeating: "n", count: $0 * 50) + ">" },
            { "<gpx><trkpt lat='1' lon='2'><ele>" + String(repeating: " ", count: $0 * 50) },
        ]
        for shape in shapes {
            let small = work(shape(100)), large = work(shape(1_000))
            #expect(small.work <= 16 * small.bytes + 64 && large.work <= 16 * large.bytes + 64, "\(small) \(large)")
            #expect(large.work <= 12 * small.work, "\(small) \(large)")
        }
    }
}
