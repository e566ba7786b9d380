import Foundation
import Testing
@testable import SmartHealthCards

@Suite struct InputTests {
    static let key = SHCIssuerKey.generate()
    static let jws: String = {
        let issuer = try? SHCIssuer(key: key, issuer: TestCards.issuer)
        return (try? issuer?.issue(bundle: TestCards.bundle, nbf: Date(timeIntervalSince1970: TestCards.nbf))) ?? ""
    }()

    static func parse(_ text: String, lenient: Bool = false) throws(SHCInputError) -> [SHCInput.Card] {
        try SHCInput.parse(Array(text.utf8), allowSurroundingWhitespace: lenient)
    }

    static func error(_ text: String, lenient: Bool = false) -> SHCInputError? {
        do {
            _ = try parse(text, lenient: lenient)
            return nil
        } catch {
            return error
        }
    }

    @Test func compactJWS() throws {
        #expect(try Self.parse(Self.jws) == [SHCInput.Card(jws: Self.jws, form: .jws)])
        #expect(try SHCInput.cards(from: Array(Self.jws.utf8)) == [Self.jws])
    }

    @Test func surroundingCharactersAreErrorsUnlessLenient() throws {
        #expect(Self.error(Self.jws + "\n") == .trailingCharacters(offset: Self.jws.utf8.count))
        #expect(Self.error(" " + Self.jws) == .trailingCharacters(offset: 0))
        #expect(Self.error("\u{FEFF}" + Self.jws) == .byteOrderMark)
        #expect(try Self.parse("\u{FEFF}" + Self.jws + "\r\n", lenient: true).map(\.jws) == [Self.jws])
        let numeric = try SHCNumeric.encode(Self.jws)
        #expect(Self.error(numeric + "\n") == .trailingCharacters(offset: numeric.utf8.count))
        #expect(try Self.parse(numeric + "\n", lenient: true).map(\.jws) == [Self.jws])
    }

    @Test func jwsSyntax() {
        let parts = Self.jws.split(separator: ".").map(String.init)
        #expect(Self.error(parts[0] + "=." + parts[1] + "." + parts[2]) == .base64Padding(card: 0))
        #expect(Self.error(parts[0] + "." + parts[1]) == .invalidJWS(card: 0, reason: "2 segments, expected 3"))
        #expect(Self.error(parts[0] + "..." + parts[2])?.code == "input.jws")
        #expect(Self.error(parts[0] + "." + parts[1] + "." + parts[2] + "+")?.code == "input.jws")
        #expect(Self.error("hello") == .unrecognizedForm)
        #expect(Self.error("") == .empty)
        #expect(Self.error("   ") == .empty)
    }

    @Test func healthCardFile() throws {
        let file = SHCFile.encode([Self.jws, Self.jws])
        #expect(try SHCInput.parse(file) == [SHCInput.Card(jws: Self.jws, form: .file), SHCInput.Card(jws: Self.jws, form: .file)])
        #expect(try SHCFile.decode(file) == [Self.jws, Self.jws])
        #expect(Self.error(#"{"verifiableCredential":[]}"#) == .noCredentials)
        #expect(Self.error(#"{"verifiableCredential":"x"}"#) == .invalidCredentialList)
        #expect(Self.error(#"{"verifiableCredential":[1]}"#) == .credentialNotAString(card: 0))
        #expect(Self.error(#"{"verifiableCredential":["\#(Self.jws) "]}"#)?.code == "input.trailing-characters")
        #expect(Self.error(#"{"something":1}"#) == .notAHealthCardDocument)
        #expect(Self.error(#"{"verifiableCredential":["#)?.code == "input.json")
        #expect(Self.error("\u{FEFF}" + String(decoding: file, as: UTF8.self)) == .byteOrderMark)
        // JSON whitespace around a document is fine.
        #expect(try Self.parse("\n  " + String(decoding: file, as: UTF8.self) + "\n").count == 2)
    }

    @Test func parametersResponse() throws {
        let response = """
            {"resourceType":"Parameters","parameter":[{"name":"verifiableCredential","valueString":"\(Self.jws)"},\
            {"name":"resourceLink","part":[{"name":"vcIndex","valueInteger":0},{"name":"bundledResource","valueUri":"resource:1"},\
            {"name":"hostedResource","valueUri":"https://fhir.example.org/Immunization/1"}]},\
            {"name":"verifiableCredential","valueString":"\(Self.jws)"}]}
            """
        #expect(try Self.parse(response) == [SHCInput.Card(jws: Self.jws, form: .parameters), SHCInput.Card(jws: Self.jws, form: .parameters)])
        #expect(try Self.parse(#"{"resourceType":"Parameters"}"#).isEmpty)
        #expect(Self.error(#"{"resourceType":"Parameters","parameter":[{"name":"verifiableCredential"}]}"#) == .invalidCredentialList)
        #expect(Self.error(#"{"resourceType":"Parameters","parameter":[{"name":"verifiableCredential","valueString":5}]}"#) == .credentialNotAString(card: 0))
        let built = SHCHealthCardsIssue.response(credentials: [Self.jws], resourceLinks: [
            .init(vcIndex: 0, bundledResource: "resource:1", hostedResource: "https://fhir.example.org/Immunization/1"),
        ])
        #expect(try SHCInput.cards(from: built.serialized()) == [Self.jws])
    }

    @Test func numericSingleAndMultiple() throws {
        let numeric = try SHCNumeric.encode(Self.jws)
        #expect(numeric.hasPrefix("shc:/"))
        #expect(try Self.parse(numeric) == [SHCInput.Card(jws: Self.jws, form: .qrNumeric)])
        #expect(try Self.parse(numeric + "\n" + numeric).count == 2)
        #expect(try Self.parse(numeric + "\r\n" + numeric).count == 2)
        #expect(Self.error(numeric + "\n\n" + numeric)?.code == "input.trailing-characters")
        #expect(try Self.parse(numeric + "\n\n" + numeric, lenient: true).count == 2)
    }

    @Test func numericErrors() throws {
        #expect(Self.error("shc:/") == .emptyNumericData(line: 0))
        #expect(Self.error("shc:/123") == .oddDigitCount(line: 0, count: 3))
        #expect(Self.error("shc:/0078") == .digitPairOutOfRange(line: 0, pair: 1, value: 78))
        #expect(Self.error("shc:/99") == .digitPairOutOfRange(line: 0, pair: 0, value: 99))
        #expect(Self.error("shc:/12a4") == .invalidNumericCharacter(line: 0, offset: 7))
        #expect(Self.error("shc:/5600\nhello") == .missingQRPrefix(line: 1))
        #expect(Self.error("shc:/1//5600") == .malformedChunkHeader(line: 0))
        #expect(Self.error("shc:/x/2/5600") == .malformedChunkHeader(line: 0))
        #expect(Self.error("shc:/3/2/5600") == .chunkIndexOutOfRange(line: 0, index: 3, total: 2))
        #expect(Self.error("shc:/0/2/5600") == .chunkIndexOutOfRange(line: 0, index: 0, total: 2))
        // "-" is 00 and "z" is 77.
        #expect(try SHCNumeric.decode("shc:/0077").jws == "-z")
    }

    @Test func legacyChunksInAnyOrder() throws {
        let long = Self.jws   // a few hundred characters: force three chunks
        let chunks = try SHCNumeric.legacyChunks(long, count: 3)
        #expect(chunks.count == 3)
        #expect(chunks[0].hasPrefix("shc:/1/3/"))
        for order in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [2, 0, 1]] {
            let cards = try Self.parse(order.map { chunks[$0] }.joined(separator: "\n"))
            #expect(cards == [SHCInput.Card(jws: long, form: .qrNumeric, chunkCount: 3)])
        }
        // An identical repeated chunk is accepted (a scanner read it twice).
        #expect(try Self.parse([chunks[0], chunks[1], chunks[1], chunks[2]].joined(separator: "\n")).map(\.jws) == [long])
        // A gap, a conflicting duplicate, mixed totals.
        #expect(Self.error([chunks[0], chunks[2]].joined(separator: "\n")) == .missingChunks([2]))
        #expect(Self.error(chunks[1]) == .missingChunks([1, 3]))
        let conflicting = "shc:/2/3/" + (try SHCNumeric.encode("abc")).dropFirst(5)
        #expect(Self.error([chunks[0], chunks[1], conflicting, chunks[2]].joined(separator: "\n")) == .conflictingChunk(index: 2))
        let twoChunks = try SHCNumeric.legacyChunks(long, count: 2)
        #expect(Self.error([chunks[0], twoChunks[1]].joined(separator: "\n")) == .inconsistentChunkTotal(line: 1, expected: 3, found: 2))
        // Balanced sizes; at most 1191 characters each (rule 49).
        let big = String(repeating: "a", count: 1200)
        let bigChunks = try SHCNumeric.legacyChunks(big)
        #expect(bigChunks.count == 2)
        #expect(try bigChunks.map { try SHCNumeric.decode($0).jws.count } == [600, 600])
        #expect(throws: SHCIssueError.invalidChunkCount(1)) { try SHCNumeric.legacyChunks(big, count: 1) }
        // A verifier reports chunked input.
        #expect(try Self.parse(chunks.joined(separator: "\n")).first?.chunkCount == 3)
    }

    @Test func numericEncodingRejectsCharactersOutsideTheRange() {
        #expect(throws: SHCIssueError.notEncodableAsNumeric) { try SHCNumeric.encode("a b") }
        #expect(throws: SHCIssueError.notEncodableAsNumeric) { try SHCNumeric.encode("{") }
    }

    @Test func deepLink() throws {
        let link = try SHCFile.deepLink(base: "https://wallet.example.org/SMARTHealthCard/", jws: [Self.jws])
        #expect(link.hasPrefix("https://wallet.example.org/SMARTHealthCard/#%7B"))
        #expect(try Self.parse(link) == [SHCInput.Card(jws: Self.jws, form: .deepLink)])
        #expect(throws: SHCFileError.insecureDeepLinkBase) { try SHCFile.deepLink(base: "http://x.example/", jws: [Self.jws]) }
        #expect(Self.error("https://wallet.example.org/") == .invalidDeepLink)
        #expect(Self.error("https://wallet.example.org/#%7B%22a%22%3A1%7D") == .invalidDeepLink)
    }

    @Test func fileWriting() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shc-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("card.smart-health-card")
        try SHCFile.write([Self.jws], to: url)
        #expect(try SHCInput.cards(from: Array(Data(contentsOf: url))) == [Self.jws])
        #expect(throws: SHCFileError.wrongExtension("json")) { try SHCFile.write([Self.jws], to: folder.appendingPathComponent("card.json")) }
        #expect(SHCFile.contentType == "application/smart-health-card")
    }

    @Test func limits() {
        let limits = SHCLimits(maxInputBytes: 10)
        #expect(throws: SHCInputError.tooLarge(bytes: Self.jws.utf8.count, limit: 10)) {
            try SHCInput.parse(Array(Self.jws.utf8), limits: limits)
        }
        let deep = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(Self.error(deep)?.code == "input.json")
    }

    @Test func errorCodesAreStableAndTypedWithoutContent() {
        let errors: [SHCInputError] = [.empty, .byteOrderMark, .trailingCharacters(offset: 3), .oddDigitCount(line: 0, count: 3),
                                       .digitPairOutOfRange(line: 0, pair: 1, value: 80), .missingChunks([2]), .base64Padding(card: 0)]
        #expect(errors.map(\.code) == ["input.empty", "input.byte-order-mark", "input.trailing-characters", "input.odd-digit-count",
                                       "input.digit-pair-range", "input.chunk-gap", "input.base64-padding"])
        #expect(errors.map(\.rule) == [31, 13, 13, 47, 47, 49, 13])
        for error in errors { #expect(!error.description.isEmpty) }
    }

    @Test("A file of many cards, read on every core, gives its cards in order and the first card's problem")
    func manyCards() throws {
        let count = 1_500
        let valid = "\"" + Self.jws + "\""
        func file(_ replacements: [Int: String]) -> String {
            #"{"verifiableCredential":["# + (0..<count).map { replacements[$0] ?? valid }.joined(separator: ",") + "]}"
        }
        let cards = try Self.parse(file([:]))
        #expect(cards.count == count && cards.allSatisfy { $0 == SHCInput.Card(jws: Self.jws, form: .file) })

        // The problem reported is the first card's that has one, wherever the runs are cut.
        let padded = "\"" + Self.jws + "=\""
        #expect(Self.error(file([1_400: "7", 900: padded])) == .base64Padding(card: 900))
        #expect(Self.error(file([1_499: padded, 20: "null", 1_000: padded])) == .credentialNotAString(card: 20))
        #expect(Self.error(file([749: padded, 750: "1"])) == .base64Padding(card: 749))
        #expect(Self.error(file([1_499: "{}"])) == .credentialNotAString(card: 1_499))
    }
}
