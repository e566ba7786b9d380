@testable import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// The prolog of export.xml (XML declaration, comments, processing instructions, the document
/// type declaration with its internal subset) is read by a tokenizer, whatever its length up to
/// ``ExportProlog/maximumSize``: the declaration is blanked before Foundation's XMLParser (which
/// crashes on `ATTLIST` and `NOTATION` declarations) sees it, or the file is refused with a typed reason.
@Suite("Apple Health export.xml prolog")
struct ExportPrologTests {
    static let body = """
        <HealthData locale="en_US">
         <ExportDate value="2020-10-05 10:00:00 +0200"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="12" \
        startDate="2020-10-02 09:00:00 +0200" endDate="2020-10-02 09:10:00 +0200"/>
        </HealthData>

        """

    /// A comment of `count` bytes that compress poorly (so a zip of it passes the bomb check).
    static func padding(_ count: Int, random: inout SplitMix64) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ]>")
        return "<!-- " + String((0..<count).map { _ in alphabet[random.below(alphabet.count)] }) + " -->\n"
    }

    /// The shape the attack used: a `<HealthData` decoy in a comment, and ATTLIST declarations
    /// (`#REQUIRED`, `#IMPLIED`) after more than a MiB of the internal subset.
    static func longDTDExport() -> String {
        var random = SplitMix64(seed: 0xD7D)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- <HealthData -->
            <!DOCTYPE HealthData [
            \(padding(1_200_000, random: &random))<!ATTLIST HealthData
              locale CDATA #REQUIRED>
            <!ATTLIST Record
              type CDATA #REQUIRED
              unit CDATA #IMPLIED>
            ]>

            """ + body
    }

    static func stepCount(_ store: HKHealthStore) async throws -> Int {
        try await AppleHealthImporterTests.quantities(store, .stepCount).count
    }

    @Test("A document type declaration ending past the first MiB is blanked and the export imports, as export.xml and as export.zip")
    func longDocumentTypeImports() async throws {
        let xml = Self.longDTDExport()
        let url = try AppleHealthImporterTests.write(xml)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        let report = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(report.imported[HKQuantityTypeIdentifier.stepCount.rawValue] == 1)
        #expect(try await Self.stepCount(store) == 1)

        let folder = url.deletingLastPathComponent()
        let archive = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: archive, exportXML: Data(xml.utf8), files: [])
        let zipStore = AppleHealthImporterTests.ownerStore()
        _ = try await AppleHealthImporter().importExport(at: archive, into: zipStore)
        #expect(try await Self.stepCount(zipStore) == 1)
    }

    @Test("Processing instructions without data (which Foundation's XMLParser dereferences as null), in the prolog and in the body, are read past")
    func instructionsWithoutData() async throws {
        let text = "<?xml version=\"1.0\"?>\n<?a?><!DOCTYPE HealthData [<?b?>]><?c?>\n"
            + Self.body.replacingOccurrences(of: "<ExportDate", with: "<?d?><?e \n?><ExportDate")
        let url = try AppleHealthImporterTests.write(text)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        _ = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(try await Self.stepCount(store) == 1)
        // The filter across chunk boundaries: every split of "<?x?>" gets its space.
        for split in 0...5 {
            var filter = InstructionFilter()
            let bytes = Array("<?x?>".utf8)
            let output = filter.apply(Array(bytes[..<split])) + filter.apply(Array(bytes[split...]))
            #expect(output == Array("<?x ?>".utf8), "split at \(split)")
        }
    }

    @Test("Prologs that are refused, each with its typed reason, nothing stored", arguments: [
        ("longer than the cap", AppleHealthExportError.Kind.tooLarge),
        ("unterminated document type", .malformedXML),
        ("unterminated comment", .malformedXML),
        ("unterminated literal", .malformedXML),
        ("root not HealthData behind a decoy", .notAnExport),
        ("UTF-16 declared", .notAnExport),
        ("entity past the first MiB", .entityDeclaration),
        ("parameter entity", .entityDeclaration),
        ("external DTD", .entityDeclaration),
        ("double hyphen in a comment", .malformedXML),
        ("second document type", .malformedXML),
        ("XML declaration later", .malformedXML),
        ("text before the root", .malformedXML),
        ("empty", .notAnExport),
    ])
    func refused(name: String, kind: AppleHealthExportError.Kind) async throws {
        var random = SplitMix64(seed: 0x4EF)
        let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let text: String = switch name {
        case "longer than the cap": declaration + Self.padding(ExportProlog.maximumSize, random: &random) + Self.body
        case "unterminated document type": declaration + "<!DOCTYPE HealthData [\n<!ATTLIST HealthData locale CDATA #REQUIRED>\n" + Self.body
        case "unterminated comment": declaration + "<!-- <HealthData>\n" + Self.body
        case "unterminated literal": declaration + "<!DOCTYPE HealthData [<!ATTLIST Record unit CDATA \"count>]>\n" + Self.body
        case "root not HealthData behind a decoy": declaration + "<!-- <HealthData> -->\n<Health locale=\"en_US\"><HealthData/></Health>"
        case "UTF-16 declared": "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" + Self.body
        case "entity past the first MiB":
            declaration + "<!DOCTYPE HealthData [\n" + Self.padding(1_100_000, random: &random) + "<!ENTITY e \"x\">\n]>\n" + Self.body
        case "parameter entity": declaration + "<!DOCTYPE HealthData [<!ATTLIST Record %p;>]>\n" + Self.body
        case "external DTD": declaration + "<!DOCTYPE HealthData PUBLIC \"-//x\" \"http://127.0.0.1/x.dtd\">\n" + Self.body
        case "double hyphen in a comment": declaration + "<!-- a -- b -->\n" + Self.body
        case "second document type": declaration + "<!DOCTYPE HealthData>\n<!DOCTYPE HealthData [<!ATTLIST a b CDATA #IMPLIED>]>\n" + Self.body
        case "XML declaration later": declaration + "<!-- -->\n<?xml version=\"1.0\"?>\n" + Self.body
        case "text before the root": declaration + "x\n" + Self.body
        default: ""
        }
        let url = try AppleHealthImporterTests.write(text)
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()
        do {
            _ = try await AppleHealthImporter().importExport(at: url, into: store)
            Issue.record("\(name): imported")
        } catch let error as AppleHealthExportError {
            #expect(error.kind == kind, "\(name): \(error)")
        }
        #expect(try await Self.stepCount(store) == 0)
    }

    // MARK: Property test

    /// Builds random prologs that follow XML's grammar, recording where the document type
    /// declaration and the root element are.
    struct PrologGenerator {
        var random: SplitMix64
        var bytes: [UInt8] = []
        var documentType: Range<Int>?

        mutating func pick(_ items: [String]) -> String { items[random.below(items.count)] }

        mutating func append(_ text: String) { bytes += Array(text.utf8) }

        mutating func space(_ atLeast: Int = 0) -> String {
            String((0..<random.int(atLeast...3)).map { _ in [" ", "\n", "\t", "\r\n"][random.below(4)] }.joined())
        }

        /// Text made of pieces that never form `--` or end with `-`: decoys a naive scan trips on.
        mutating func commentText() -> String {
            (0..<random.int(0...8)).map { _ in
                pick(["a", " ", ">", "]", "]>", "<HealthData", "<!DOCTYPE x [", "<!ATTLIST a b CDATA #REQUIRED>", "?>", "'", "\"", "- ", "\n", "é",
                      "<!ENTITY"])
            }.joined()
        }

        /// Text that never forms `?>`.
        mutating func instructionText() -> String {
            (0..<random.int(0...6)).map { _ in
                pick(["a", ">", "]>", "<!ATTLIST x y CDATA #IMPLIED>", "<HealthData", "'", "\"", "? ", " ", "-->", "<!--"])
            }.joined()
        }

        mutating func comment() -> String { "<!--" + commentText() + "-->" }

        mutating func instruction() -> String {
            "<?" + pick(["app", "xml-stylesheet", "pi", "x"]) + (random.chance(0.7) ? " " + instructionText() : "") + "?>"
        }

        mutating func literal() -> String {
            let quote = pick(["\"", "'"])
            let inside = (0..<random.int(0...4)).map { _ in pick(["a", ">", "]", "]>", "<", "#IMPLIED", quote == "\"" ? "'" : "\"", " "]) }.joined()
            return quote + inside + quote
        }

        mutating func declaration() -> String {
            switch random.below(3) {
            case 0:
                return "<!ELEMENT " + pick(["HealthData", "Record", "x"]) + " " + pick(["EMPTY", "ANY", "(ExportDate,Me,(Record|Workout)*)",
                                                                                        "(#PCDATA)"]) + space() + ">"
            case 1:
                let attributes = (0..<random.int(1...4)).map { _ in
                    space(1) + pick(["type", "unit", "value", "locale"]) + space(1) + pick(["CDATA", "(a|b)", "NMTOKEN"]) + space(1)
                        + pick(["#REQUIRED", "#IMPLIED", "#FIXED " + literal(), literal()])
                }
                return "<!ATTLIST " + pick(["HealthData", "Record", "MetadataEntry"]) + attributes.joined() + space() + ">"
            default:
                return "<!NOTATION " + pick(["png", "n"]) + " " + pick(["SYSTEM " + literal(), "PUBLIC " + literal() + " " + literal(),
                                                                        "PUBLIC " + literal()]) + space() + ">"
            }
        }

        mutating func misc() -> String {
            (0..<random.int(0...3)).map { _ in
                switch random.below(3) {
                case 0: comment()
                case 1: instruction()
                default: space(1)
                }
            }.joined()
        }

        /// A whole export: prolog, then ``ExportPrologTests/body``; the root's offset.
        mutating func export(longSubset: Bool) -> Int {
            if random.chance(0.1) { append("\u{FEFF}") }
            if random.chance(0.8) {
                append("<?xml version=" + pick(["\"1.0\"", "'1.0'"]) + (random.chance(0.6) ? " encoding=" + pick(["\"UTF-8\"", "'utf-8'"]) : "")
                       + (random.chance(0.3) ? " standalone=\"yes\"" : "") + space() + "?>")
            }
            append(misc())
            if random.chance(0.85) {
                let start = bytes.count
                append("<!DOCTYPE" + space(1) + "HealthData" + space())
                if random.chance(0.9) {
                    append("[")
                    if longSubset { append(ExportPrologTests.padding(1_100_000, random: &random)) }
                    for _ in 0..<random.int(0...6) {
                        append(space())
                        switch random.below(4) {
                        case 0: append(comment())
                        case 1: append(instruction())
                        default: append(declaration())
                        }
                    }
                    append(space() + "]" + space())
                }
                append(">")
                documentType = start..<bytes.count
            }
            append(misc())
            let root = bytes.count
            append(ExportPrologTests.body)
            return root
        }
    }

    /// Reads `bytes` as the importer does (prolog, then the parser): the elements read.
    static func readAll(_ bytes: [UInt8]) throws -> Int {
        let stream = try PrologStrippedStream.open(DataByteSource(Data(bytes)))
        defer { stream.close() }
        var elements = 0
        try ExportXMLReader().read(stream) { _ in elements += 1 }
        return elements
    }

    @Test("Random prologs that follow XML's grammar import, whatever their length; random damage to them never crashes")
    func randomPrologs() throws {
        var random = SplitMix64(seed: 0x9E01_0633)
        let specials = Array("<>!-?[]%'\"&;= \n".utf8) + [0, 0xFF, 0xEF]
        for round in 0..<1_500 {
            var generator = PrologGenerator(random: SplitMix64(seed: random.next()))
            let root = generator.export(longSubset: round % 300 == 7)
            let bytes = generator.bytes
            // The tokenizer finds the root and the declaration the generator wrote, and only the declaration is blanked.
            let prolog = try #require(try ExportProlog.read(bytes, isComplete: true), "round \(round)")
            #expect(prolog == ExportProlog(rootOffset: root, documentType: generator.documentType), "round \(round)")
            let blanked = prolog.blankingDocumentType(of: bytes)
            let declaration = prolog.documentType ?? root..<root
            #expect(blanked[..<declaration.lowerBound] == bytes[..<declaration.lowerBound]
                        && blanked[declaration.upperBound...] == bytes[declaration.upperBound...])
            #expect(blanked[declaration].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D })
            // A prefix is either "more may follow" or the same prolog.
            if let partial = try ExportProlog.read(Array(bytes.prefix(random.below(bytes.count))), isComplete: false) {
                #expect(partial == prolog, "round \(round)")
            }
            #expect(try Self.readAll(bytes) == 2, "round \(round)")

            // Damage in the prolog (and just past it): a value or a typed error, never a crash.
            var damaged = bytes
            for _ in 0..<random.int(1...6) where !damaged.isEmpty {
                let index = random.below(min(damaged.count, root + 40))
                switch random.below(4) {
                case 0: damaged[index] = specials[random.below(specials.count)]
                case 1: damaged.remove(at: index)
                case 2: damaged.insert(contentsOf: Array(generator.pick(["<!ATTLIST a b CDATA #REQUIRED>", "<!DOCTYPE HealthData [", "]>", "<!--", "-->",
                                                                          "<HealthData>", "<!ENTITY x 'y'>", "%p;", "<?xml version='1.0'?>"]).utf8),
                                          at: index)
                default: damaged = Array(damaged.prefix(index))
                }
            }
            do {
                _ = try Self.readAll(damaged)
            } catch {
                #expect(error is AppleHealthExportError, "round \(round): \(error)")
            }
        }
    }
}
