import FHIRCore
import Foundation
import ModelsR4
import Testing
import TestSupport

/// Decoding shares the `String` of a text that recurs in one document (FHIRCore's string table):
/// the values must be exactly what decoding each text alone gives, whatever the table keeps.
@Suite("Decoding with recurring strings")
struct SharedStringDecodingTests {
    /// A bundle of observations whose systems, references and displays recur, mixed with unique
    /// ones and with texts of every length around the small-string and caching limits, so slots
    /// are hit, missed and replaced (a small document has a table of only 16 slots).
    static func bundleJSON(entries: Int, seed: UInt64) -> String {
        var random = SplitMix64(seed: seed)
        let systems = (0..<5).map { "http://terminology.example.org/CodeSystem/system-\($0)" }
        let lengths = [14, 15, 16, 17, 31, 64, 255, 256, 257]
        var items: [String] = []
        for index in 0..<entries {
            let system = systems[Int(random.next() % UInt64(systems.count))]
            let length = lengths[Int(random.next() % UInt64(lengths.count))]
            // Same length and same first, middle and last words as other displays, different inside.
            let display = String(repeating: "d", count: length / 2) + "\(index % 7)" + String(repeating: "d", count: length - length / 2 - 1)
            let unique = "urn:uuid:00000000-0000-0000-0000-\(String(repeating: "0", count: 12 - String(index).count))\(index)"
            items.append(#"""
                {"fullUrl":"\#(unique)","resource":{"resourceType":"Observation","id":"o\#(index)","status":"final",\#
                "code":{"coding":[{"system":"\#(system)","code":"c\#(index % 3)","display":"\#(display)"}],\#
                "text":"caf\u00e9 au lait, escaped and long enough"},"subject":{"reference":"urn:uuid:11111111-2222-3333-4444-555555555555"}}}
                """#)
        }
        return #"{"resourceType":"Bundle","type":"collection","entry":[\#(items.joined(separator: ","))]}"#
    }

    @Test("every decoded string equals its text, and the bundle re-encodes to the same JSON", arguments: [3, 40, 400])
    func recurringStrings(entries: Int) throws {
        let json = Self.bundleJSON(entries: entries, seed: UInt64(entries))
        let bundle = try ModelsR4.Bundle(fhirJSON: json)
        // The writer writes "é" itself where the document escaped it; nothing else changes.
        #expect(bundle.fhirJSONString() == json.replacingOccurrences(of: #"\u00e9"#, with: "é"))
        let tree = try JSONParser.parse(Array(json.utf8))
        let expected = tree.objectValue?["entry"]?.arrayValue ?? []
        #expect(bundle.entry?.count == entries)
        for (entry, json) in zip(bundle.entry ?? [], expected) {
            guard case .observation(let observation) = entry.resource else {
                Issue.record("entry is not an Observation")
                continue
            }
            let coding = json.objectValue?["resource"]?.objectValue?["code"]?.objectValue?["coding"]?.arrayValue?.first?.objectValue
            #expect(entry.fullUrl?.value?.string == json.objectValue?["fullUrl"]?.stringValue)
            #expect(observation.code.coding?.first?.system?.value?.string == coding?["system"]?.stringValue)
            #expect(observation.code.coding?.first?.display?.value?.string == coding?["display"]?.stringValue)
            #expect(observation.code.text?.value?.string == "café au lait, escaped and long enough")
            #expect(observation.subject?.reference?.value?.string == "urn:uuid:11111111-2222-3333-4444-555555555555")
        }
    }

    @Test("a value that shares its text with another keeps value semantics when changed")
    func valueSemantics() throws {
        let json = Self.bundleJSON(entries: 2, seed: 7)
        let bundle = try ModelsR4.Bundle(fhirJSON: json)
        guard case .observation(let first) = bundle.entry?[0].resource,
              case .observation(let second) = bundle.entry?[1].resource else {
            Issue.record("entries are not Observations")
            return
        }
        var changed = first
        changed.subject?.reference?.value?.string.append("-changed")
        #expect(changed.subject?.reference?.value?.string == "urn:uuid:11111111-2222-3333-4444-555555555555-changed")
        #expect(first.subject?.reference?.value?.string == "urn:uuid:11111111-2222-3333-4444-555555555555")
        #expect(second.subject?.reference?.value?.string == "urn:uuid:11111111-2222-3333-4444-555555555555")
    }
}
