import CommonSupport
import ExactJSON
import Foundation
import Testing
import TestSupport
@testable import SmartHealthLinks

/// Links and payloads: the public vectors, round trips, and every refusal.
struct SHLinkTests {
    static func vector(_ name: String) throws -> String {
        try String(contentsOf: TestData.shlinkVectors.appendingPathComponent(name), encoding: .utf8)
    }

    static func payloadJSON(_ name: String) throws -> JSONValue {
        try JSONParser.parse(Array(vector(name).utf8))
    }

    @Test(arguments: [("shlink-link.txt", "shlink-payload.txt"), ("shlink-link-with-viewer.txt", "shlink-payload.txt"),
                      ("shlink-link-direct.txt", "shlink-payload-direct.txt")])
    func vectorLinksReadAsTheirPayloads(link: String, payload: String) throws {
        let parsed = try SHLink.parse(Self.vector(link))
        let expected = try Self.payloadJSON(payload)
        #expect(parsed.url == expected["url"]?.stringValue)
        #expect(Base64URL.encode(parsed.key) == expected["key"]?.stringValue)
        #expect(parsed.flags.letters == expected["flag"]?.stringValue)
        #expect(parsed.label == expected["label"]?.stringValue)
        #expect(parsed.expiration.map(Double.init) == expected["exp"]?.doubleValue)
        #expect(parsed.version == 1)
    }

    @Test func theDirectVectorIsDirectAndThePasscodeOneAsksAPasscode() throws {
        #expect(try SHLink.parse(Self.vector("shlink-link-direct.txt")).flags == [.direct])
        #expect(try SHLink.parse(Self.vector("shlink-link.txt")).flags == [.passcode])
    }

    @Test func randomPayloadsRoundTrip() throws {
        var random = SplitMix64(seed: 0x5411_0001)
        for round in 0..<500 {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            let segment = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
            let url = (random.chance(0.5) ? "https://shl.example.org/shl/" : "http://127.0.0.1:8080/shl/") + segment
            var flags: SHLinkFlags = []
            if random.chance(0.5) { flags.insert(.longTerm) }
            if random.chance(0.5) { flags.insert(.passcode) } else if random.chance(0.3) { flags.insert(.direct) }
            let labelCharacters = Array("Labs and vaccines é 😀 \"quoted\" \\ /")
            let label: String? = random.chance(0.7)
                ? String((0..<random.int(0...80)).map { _ in labelCharacters[random.below(labelCharacters.count)] }) : nil
            let exp: Int64? = random.chance(0.6) ? Int64(random.int(0...4_000_000_000)) : nil
            let payload = try SHLinkPayload(url: url, key: key, expiration: exp, flags: flags, label: label)
            let link = SHLink.link(payload)
            #expect(try SHLink.parse(link) == payload, "round \(round)")
            #expect(try SHLink.parse("  https://viewer.example/view#" + link + "\n") == payload)
            #expect(link.utf8.allSatisfy { Base64URL.isAlphabet($0) || "shlink:/".utf8.contains($0) })
        }
    }

    @Test func theFlagStringIsAlphabeticalAndUnknownLettersAreIgnored() throws {
        #expect(SHLinkFlags([.passcode, .longTerm]).letters == "LP")
        #expect(SHLinkFlags(letters: "XPQL") == [.longTerm, .passcode])
        let key = Base64URL.encode([UInt8](repeating: 7, count: 32))
        let json = #"{"url":"https://a.example/shl/x","key":"\#(key)","flag":"LZ","_ext":{"a":[1,2]},"future":true}"#
        let payload = try SHLinkPayload(json: Array(json.utf8))
        #expect(payload.flags == [.longTerm])
    }

    static let goodKey = Base64URL.encode([UInt8](repeating: 1, count: 32))

    static let refusals: [(String, SHLinkError)] = [
        ("hello", .notALink),
        ("https://viewer.example/#notalink", .notALink),
        ("shlink:/", .payloadNotBase64URL),
        ("shlink:/ab+c", .payloadNotBase64URL),
        ("shlink:/" + Base64URL.encode(Array("[1,2]".utf8)), .payloadNotJSON("it is a JSON array")),
        ("shlink:/" + Base64URL.encode(Array(#"{"key":"\#(goodKey)"}"#.utf8)), .payloadMember("url", "is missing")),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":5,"key":"\#(goodKey)"}"#.utf8)), .payloadMember("url", "is not a string")),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":"https://a.example/x","key":"abc"}"#.utf8)), .badKey),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":"https://a.example/x","key":"\#(goodKey)","flag":"PU"}"#.utf8)), .directWithPasscode),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":"https://a.example/x","key":"\#(goodKey)","v":2}"#.utf8)), .unsupportedVersion(2)),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":"https://a.example/x","key":"\#(goodKey)","exp":"soon"}"#.utf8)),
         .payloadMember("exp", "is not a time in seconds since 1970")),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":"http://evil.example/x","key":"\#(goodKey)"}"#.utf8)), .badManifestURL("uses http:, not https:")),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":"ftp://a.example/x","key":"\#(goodKey)"}"#.utf8)), .badManifestURL("uses ftp:, not https:")),
        ("shlink:/" + Base64URL.encode(Array(#"{"url":"https://a.example/\#(String(repeating: "x", count: 120))","key":"\#(goodKey)"}"#.utf8)),
         .badManifestURL("is 138 characters long; a link's address has at most 128")),
        ("shlink:/" + String(repeating: "A", count: 9_000), .linkTooLong(9_008)),
    ]

    @Test(arguments: refusals)
    func badLinksAreRefusedWithTheirReason(text: String, expected: SHLinkError) {
        #expect(throws: expected) { try SHLink.parse(text) }
        #expect(!expected.description.isEmpty)
    }

    @Test func creatingRefusesALongLabel() {
        #expect(throws: SHLinkError.labelTooLong(81)) {
            try SHLinkPayload(url: "https://a.example/x", key: [UInt8](repeating: 0, count: 32), label: String(repeating: "a", count: 81))
        }
    }

    /// Fuzz: mutated links and random text never crash; each is read or refused with a reason.
    @Test func mutatedLinksAreReadOrRefused() throws {
        var random = SplitMix64(seed: 0x5411_0002)
        let seeds = try ["shlink-link.txt", "shlink-link-direct.txt", "shlink-link-with-viewer.txt"].map { Array(try Self.vector($0).utf8) }
        var refused = 0
        for _ in 0..<20_000 {
            var bytes = seeds[random.below(seeds.count)]
            for _ in 0...random.below(4) {
                switch random.below(4) {
                case 0 where !bytes.isEmpty: bytes[random.below(bytes.count)] = UInt8(random.below(256))
                case 1 where !bytes.isEmpty: bytes.remove(at: random.below(bytes.count))
                case 2: bytes.insert(UInt8(random.below(256)), at: random.below(bytes.count + 1))
                default: bytes = Array(bytes.prefix(random.below(bytes.count + 1)))
                }
            }
            do {
                _ = try SHLink.parse(String(decoding: bytes, as: UTF8.self))
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(refused > 1_000)
    }

    @Test("A new manifest id is 43 base64url characters and never starts with '-', which a command line reads as an option")
    func manifestIDsAreArguments() {
        var firsts = Set<Character>()
        for _ in 0..<10_000 {
            let id = SHLink.newManifestID()
            #expect(id.count == 43 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            #expect(id.first != "-", "\(id)")
            if let first = id.first { firsts.insert(first) }
        }
        // Every other first character still occurs (63 of base64url's 64).
        #expect(firsts.count == 63)
    }
}
