import Foundation
import OpenHealthKit
import SampleFiles
import Testing
import TestSupport

@Suite("Samples from CSV and JSON Lines")
struct SampleFileParserTests {
    let parser = SampleFileParser(timeZone: TimeZone(identifier: "UTC") ?? .current)

    @Test("CSV: a header, quoted fields with commas, units, categories, blank rows")
    func csv() throws {
        let text = """
            Type,Start,End,Value,Unit,Note
            stepCount,2026-11-20T08:00:00Z,2026-11-20T09:00:00Z,1200,count,"walk, then run"
            heartRate,2026-11-20T08:00:00Z,,61,"count/min","two
            lines"

            "bodyMass",2026-11-20,,"154.3",lb,
            sleepAnalysis,2026-11-20 01:00,2026-11-20 02:00,4,,
            """
        let samples = try parser.parse(text, format: .csv)
        #expect(samples.count == 4)
        let mass = try #require(samples[2] as? HKQuantitySample)
        #expect(abs(mass.quantity.doubleValue(for: .pound()) - 154.3) < 1e-9)
        #expect(mass.startDate == Date(timeIntervalSince1970: 1_795_132_800))
        let sleep = try #require(samples[3] as? HKCategorySample)
        #expect(sleep.value == 4 && sleep.endDate.timeIntervalSince(sleep.startDate) == 3600)
        let heart = try #require(samples[1] as? HKQuantitySample)
        #expect(heart.startDate == heart.endDate)
    }

    @Test("JSON Lines: numbers or strings, the type's display unit by default")
    func jsonLines() throws {
        let text = """
            {"type":"HKQuantityTypeIdentifierStepCount","start":"2026-11-20T10:00:00Z","value":3}
            {"type":"bloodGlucose","start":"2026-11-20T07:00:00+01:00","value":"5.5","unit":"mmol<180.15588000005408>/L"}
            """
        let samples = try parser.parse(text, format: .jsonLines)
        #expect(samples.map(\.sampleType.identifier) == ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierBloodGlucose"])
        #expect(samples[1].startDate == Date(timeIntervalSince1970: 1_795_154_400))
    }

    @Test("The first bad line is named, with what is wrong and none of its values", arguments: [
        ("type,start\nstepCount,2026-11-20", SampleFileFormat.csv, SampleFileError(line: 1, reason: "the CSV header needs a 'value' column")),
        ("type,start,value\nstepCount,2026-11-20,1,9", .csv, SampleFileError(line: 2, reason: "expected 3 fields, found 4")),
        ("type,start,value\nstepCount,2026-11-20,1\nnonsense,2026-11-20,1", .csv, SampleFileError(line: 3, reason: "missing or unknown type")),
        ("{\"type\":\"stepCount\",\"start\":\"2026-11-20\",\"value\":1}\n{\"type\":\"stepCount\",\"start\":\"oops\",\"value\":3}", .jsonLines,
         SampleFileError(line: 2, reason: "missing or invalid start date")),
        ("{\"type\":\"stepCount\",\"start\":\"2026-11-20T10:00:00Z\",\"end\":\"2026-11-20T09:00:00Z\",\"value\":1}", .jsonLines,
         SampleFileError(line: 1, reason: "the end is before the start")),
        ("{\"type\":\"stepCount\",\"start\":\"2026-11-20\",\"value\":1,\"unit\":\"kg\"}", .jsonLines,
         SampleFileError(line: 1, reason: "unit 'kg' does not fit Step Count")),
        ("{\"type\":\"sleepAnalysis\",\"start\":\"2026-11-20\",\"value\":1.5}", .jsonLines,
         SampleFileError(line: 1, reason: "a category value must be a whole number")),
        ("[1,2]", .jsonLines, SampleFileError(line: 1, reason: "not a JSON object")),
    ])
    func refusals(_ text: String, _ format: SampleFileFormat, _ expected: SampleFileError) {
        #expect(throws: expected) { try parser.parse(text, format: format) }
    }

    @Test("Mutated lines are refused with a line number or read whole, never a crash")
    func mutations() throws {
        var generator = SplitMix64(seed: 11)
        let valid = [
            "{\"type\":\"heartRate\",\"start\":\"2026-11-20T08:00:00Z\",\"value\":61,\"unit\":\"count/min\"}",
            "{\"type\":\"sleepAnalysis\",\"start\":\"2026-11-20T01:00:00Z\",\"end\":\"2026-11-20T02:00:00Z\",\"value\":4}",
        ]
        let csvValid = "type,start,end,value,unit\nheartRate,2026-11-20T08:00:00Z,,61,\"count/min\""
        let alphabet = Array("{}[]\",:0123456789.-eE aZ\\/ün\n\r".unicodeScalars)
        func mutate(_ text: String) -> String {
            var scalars = Array(text.unicodeScalars)
            for _ in 0..<generator.int(1...4) {
                let position = generator.below(scalars.count)
                switch generator.below(3) {
                case 0: scalars.remove(at: position)
                case 1: scalars.insert(alphabet[generator.below(alphabet.count)], at: position)
                default: scalars[position] = alphabet[generator.below(alphabet.count)]
                }
                if scalars.isEmpty { scalars = ["{"] }
            }
            return String(String.UnicodeScalarView(scalars))
        }
        var accepted = 0
        for round in 0..<3_000 {
            for (text, format) in [(mutate(valid[round % 2]), SampleFileFormat.jsonLines), (mutate(csvValid), .csv)] {
                do {
                    accepted += try parser.parse(text, format: format).count
                } catch {
                    #expect(error.line >= 1 && error.line <= text.utf8.count + 1)
                }
            }
        }
        #expect(try parser.parse(valid.joined(separator: "\n"), format: .jsonLines).count == 2)
        #expect(accepted < 6_000)
    }
}
