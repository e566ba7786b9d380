import Foundation
import Testing
@testable import health

@Suite("Import parser: property tests")
struct SampleImportParserTests {
    @Test("Mutated and random lines are rejected with a line number, never a crash")
    func mutations() throws {
        var state: UInt64 = 11
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let valid = [
            "{\"type\":\"heartRate\",\"start\":\"2026-11-20T08:00:00Z\",\"value\":61,\"unit\":\"count/min\"}",
            "{\"type\":\"sleepAnalysis\",\"start\":\"2026-11-20T01:00:00Z\",\"end\":\"2026-11-20T02:00:00Z\",\"value\":4}",
        ]
        let alphabet = Array("{}[]\",:0123456789.-eE aZ\\/ün".unicodeScalars)
        var accepted = 0
        for round in 0..<3_000 {
            var scalars = Array(valid[round % 2].unicodeScalars)
            for _ in 0..<(1 + Int(next() % 4)) {
                let position = Int(next() % UInt64(scalars.count))
                switch next() % 3 {
                case 0: scalars.remove(at: position)
                case 1: scalars.insert(alphabet[Int(next() % UInt64(alphabet.count))], at: position)
                default: scalars[position] = alphabet[Int(next() % UInt64(alphabet.count))]
                }
                if scalars.isEmpty { scalars = ["{"] }
            }
            let line = String(String.UnicodeScalarView(scalars))
            do {
                let records = try SampleImportParser.parse(line, isCSV: false)
                accepted += records.count
            } catch {
                #expect(String(describing: error).contains("line 1"), "error without a line: \(error)")
            }
            _ = try? SampleImportParser.parse(line.replacingOccurrences(of: "\"", with: ""), isCSV: true)
        }
        #expect(try SampleImportParser.parse(valid.joined(separator: "\n"), isCSV: false).count == 2)
        #expect(accepted < 3_000)
    }
}
