import ExactJSON
import FhirBlocks
import FhirBlocksStore
import Testing
import TestSupport
@testable import FhirBlocksServer

/// A search page splices each stored resource's bytes into its entry unparsed: the cheap check
/// it makes of them (``TrustService/isDelimitedObject(_:)``) keeps exactly the JSON values the
/// validating tape it replaced kept (objects), so the Bundle of the same stored resources is
/// byte for byte what it was.
@Suite struct SearchsetTests {
    /// A random JSON value: mostly an Observation (``StoredLabelsTests/resource(_:)``), else an
    /// array, a string, a number, a literal, an empty object; with or without whitespace around.
    static func value(_ random: inout SplitMix64) -> String {
        let core: String
        switch random.below(8) {
        case 0: core = "[" + StoredLabelsTests.resource(&random) + "]"
        case 1: core = #""{ not an object }""#
        case 2: core = String(random.int(-100...100))
        case 3: core = ["true", "false", "null"][random.below(3)]
        case 4: core = random.chance(0.5) ? "{}" : "{ }"
        default: core = StoredLabelsTests.resource(&random)
        }
        let spaces = [" ", "\n", "\r\n", "\t", ""]
        return (random.chance(0.3) ? spaces[random.below(spaces.count)] : "") + core + (random.chance(0.3) ? spaces[random.below(spaces.count)] : "")
    }

    @Test func keepsWhatTheValidatingTapeKept() throws {
        var random = SplitMix64(seed: 1504)
        for _ in 0..<1_000 {
            let json = Array(Self.value(&random).utf8)
            let tape = try JSONTape(json, maximumDepth: 512, allowsByteOrderMark: false)
            #expect(FHIRController.isDelimitedObject(json) == (tape.kind(0) == .object), "\(String(decoding: json, as: UTF8.self))")
        }
    }

    /// The Bundle as it was built before (each resource checked with a validating tape, each
    /// `fullUrl` serialized whole): the oracle for ``bundleIsByteIdenticalToTheTapePath()``.
    static func tapeSearchset(base: String, type: String?, total: Int?, records: [FHIRResourceRecord], selfLink: String,
                              nextLink: String?, ignored: [String]) -> [UInt8] {
        var bundle = JSONObject()
        bundle.append("resourceType", "Bundle")
        bundle.append("type", "searchset")
        if let total { bundle.append("total", .number(String(total))) }
        var links: [JSONValue] = [FHIRController.link("self", selfLink)]
        if let nextLink { links.append(FHIRController.link("next", nextLink)) }
        bundle.append("link", .array(links))
        var entries: [[UInt8]] = []
        for record in records {
            guard let tape = try? JSONTape(record.json, maximumDepth: 512, allowsByteOrderMark: false), tape.kind(0) == .object else { continue }
            entries.append(Array(#"{"fullUrl":"#.utf8) + JSONWriter.serialize(.string("\(base)/fhir/\(type ?? record.type)/\(record.id)"))
                           + Array(#","resource":"#.utf8) + record.json + Array(#","search":{"mode":"match"}}"#.utf8))
        }
        if !ignored.isEmpty {
            let diagnostics = "ignored unknown search parameters: " + ignored.joined(separator: ", ")
            let issue = JSONObject(members: [JSONMember(key: "severity", value: .string("warning")), JSONMember(key: "code", value: .string("not-supported")),
                                             JSONMember(key: "diagnostics", value: .string(diagnostics))])
            let outcome = JSONObject(members: [JSONMember(key: "resourceType", value: .string("OperationOutcome")),
                                               JSONMember(key: "issue", value: .array([.object(issue)]))])
            entries.append(JSONWriter.serialize(.object(JSONObject(members: [
                JSONMember(key: "resource", value: .object(outcome)),
                JSONMember(key: "search", value: .object(JSONObject(members: [JSONMember(key: "mode", value: .string("outcome"))]))),
            ]))))
        }
        var bytes = JSONWriter.serialize(.object(bundle))
        guard !entries.isEmpty else { return bytes }
        bytes.removeLast()
        return bytes + Array(#","entry":["#.utf8) + Array(entries.joined(separator: [UInt8(ascii: ",")])) + Array("]}".utf8)
    }

    @Test func bundleIsByteIdenticalToTheTapePath() throws {
        var random = SplitMix64(seed: 2611)
        let patient = CsiGuid.random(using: &random)
        let ids = ["o1", "a-b.c", "x\"y", "back\\slash", "tab\there", "é", "\u{1}"]
        let types = ["Observation", "Condition", "Ty\"pe"]
        for _ in 0..<300 {
            let records = (0..<random.int(0...6)).map { _ in
                FHIRResourceRecord(type: types[random.below(types.count)], id: ids[random.below(ids.count)], patient: patient, versionID: 1,
                                   lastUpdated: Timestamp(millisecondsSince1970: 0), json: Array(Self.value(&random).utf8))
            }
            let base = random.chance(0.8) ? "http://127.0.0.1:8080" : "http://host/\"quoted\"\\path"
            let type: String? = random.chance(0.5) ? nil : types[random.below(types.count)]
            let total: Int? = random.chance(0.5) ? nil : random.int(0...500)
            let next: String? = random.chance(0.5) ? nil : base + "/fhir/Observation?_cursor=abc"
            let ignored = random.chance(0.3) ? ["colour", "x:y"] : []
            let built = FHIRController.searchset(base: base, type: type, total: total, records: records, selfLink: base + "/fhir/Observation",
                                               nextLink: next, ignored: ignored)
            let oracle = Self.tapeSearchset(base: base, type: type, total: total, records: records, selfLink: base + "/fhir/Observation",
                                            nextLink: next, ignored: ignored)
            #expect(built == oracle, "\(String(decoding: oracle, as: UTF8.self))")
        }
    }

    @Test func refusesWhatCannotBeOneObject() {
        for text in ["", " ", "{", "}", "[]", "\"x\"", "{\"a\":1", "\"a\":1}"] {
            #expect(!FHIRController.isDelimitedObject(Array(text.utf8)), "\(text)")
        }
    }
}
