import ExactJSON
import Testing
import TestSupport
@testable import FhirBlocks

@Suite struct AuditEntryTests {
    static let entry = AuditEntry(type: .fhirAccess, recorded: AppendixA.now, outcome: .success, agent: AppendixA.granter,
                                  patient: "Patient/123", otherAgents: [AppendixA.grantee], permissionIDs: ["p1"], tokenID: "t1",
                                  resources: ["Observation/9"], scope: "patient/Observation.rs", quirks: [.bearerWithoutSpace],
                                  requestHash: String(repeating: "ab", count: 32))

    @Test func canonicalBytesAreSortedCompactJSON() throws {
        let text = String(decoding: Self.entry.canonicalBytes, as: UTF8.self)
        #expect(text == #"""
            {"action":"R","agent":"b8565047-08d8-4293-b81e-ec2e9d37db8e","otherAgents":["2cf13cf4-3780-4f2a-9310-23abd3d1596a"],"outcome":0,\#
            "patient":"Patient/123","permissionIds":["p1"],"quirks":["bearer-without-space"],"recorded":"2018-01-12T17:03:21.000Z",\#
            "requestHash":"\#(String(repeating: "ab", count: 32))","resources":["Observation/9"],"scope":"patient/Observation.rs","tokenId":"t1",\#
            "type":"fhir-access","v":1}
            """#)
        #expect(try AuditEntry(canonicalBytes: Self.entry.canonicalBytes) == Self.entry)
        #expect(Self.entry.leafHash == MerkleHash.leaf(Self.entry.canonicalBytes))
        let minimal = AuditEntry(type: .registration, recorded: AppendixA.now, agent: AppendixA.granter)
        #expect(try AuditEntry(canonicalBytes: minimal.canonicalBytes) == minimal)
    }

    /// The bytes written member by member are the canonical JSON tree serialized, for random
    /// entries whose strings hold quotes, backslashes, control characters and non-ASCII text
    /// (so logs written before keep their leaves), and they read back to the same entry.
    @Test func canonicalBytesEqualTheSerializedTree() throws {
        var random = SplitMix64(seed: 0xA0D1_7E47)
        let alphabet: [String] = ["a", "Z", "0", "/", "-", "\"", "\\", "\n", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "€", "𝄞", " ", "|"]
        func text() -> String { (0..<random.int(0...12)).map { _ in alphabet[random.below(alphabet.count)] }.joined() }
        func optionalText() -> String? { random.chance(0.3) ? nil : text() }
        func texts() -> [String] { (0..<random.int(0...3)).map { _ in text() } }
        for _ in 0..<500 {
            let entry = AuditEntry(type: AuditEventType.allCases[random.below(AuditEventType.allCases.count)],
                                   recorded: Timestamp(millisecondsSince1970: Int64(random.int(-62_135_596_800_000...253_402_300_799_999))),
                                   outcome: AuditOutcome.allCases[random.below(AuditOutcome.allCases.count)], agent: text(),
                                   patient: optionalText(), otherAgents: texts(), permissionIDs: texts(), tokenID: optionalText(), resources: texts(),
                                   scope: optionalText(), quirks: Array(CompatQuirk.allCases.filter { _ in random.chance(0.3) }),
                                   requestHash: optionalText(), reason: optionalText(),
                                   action: random.chance(0.5) ? nil : ["C", "R", "U", "D", "E"][random.below(5)],
                                   count: random.chance(0.7) ? nil : random.int(1...1_000_000))
            let bytes = entry.canonicalBytes
            #expect(bytes == JSONWriter.serialize(entry.canonicalJSON))
            #expect(try AuditEntry(canonicalBytes: bytes) == entry)
        }
    }

    /// A write's entry keeps its own action (C or U) in its bytes and reads back with it;
    /// an entry logged before actions were stored (the type's action) reads back unchanged.
    @Test func actionIsPartOfTheEntry() throws {
        var created = Self.entry
        created.action = "C"
        let text = String(decoding: created.canonicalBytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"action":"C","#))
        #expect(try AuditEntry(canonicalBytes: created.canonicalBytes).action == "C")
        #expect(created.leafHash != Self.entry.leafHash)
        #expect(AuditEntry(type: .fhirAccess, recorded: AppendixA.now, agent: "a",
                           action: "U").auditEvent(observer: "o").objectValue?["action"] == .string("U"))
        // The default is the type's action, so earlier entries' bytes are what they were.
        #expect(try AuditEntry(canonicalBytes: Self.entry.canonicalBytes).action == "R")
        #expect(throws: AuditEntryError.invalidMember("action")) {
            try AuditEntry(canonicalBytes: Array(text.replacingOccurrences(of: #""action":"C""#, with: #""action":"X""#).utf8))
        }
    }

    /// Whose entries each reader may read.
    @Test func readersSeeWhatConcernsThem() {
        let patient = csi(number: 1), agent = csi(number: 2), other = csi(number: 3)
        let entry = AuditEntry(type: .fhirAccess, recorded: AppendixA.now, agent: agent.rawValue, patient: patient.rawValue)
        #expect(AuditReader.patient(patient).maySee(entry) && AuditReader.agent(agent).maySee(entry) && AuditReader.auditor.maySee(entry))
        #expect(!AuditReader.anonymous.maySee(entry) && !AuditReader.agent(other).maySee(entry) && !AuditReader.patient(other).maySee(entry))
        // A wallet's own actions about nobody in particular (its registration) are its own.
        #expect(AuditReader.patient(patient).maySee(AuditEntry(type: .registration, recorded: AppendixA.now, agent: patient.rawValue)))
        // A grantee never reads other agents' entries about the patient, even with the patient's csi as agent id elsewhere.
        #expect(!AuditReader.agent(patient).maySee(AuditEntry(type: .fhirAccess, recorded: AppendixA.now, agent: agent.rawValue, patient: patient.rawValue)))
    }

    /// An aggregate entry keeps its count in its bytes; a count must be a positive integer.
    @Test func countIsPartOfTheEntry() throws {
        let aggregate = AuditEntry(type: .authenticationFailure, recorded: AppendixA.now, outcome: .minorFailure,
                                   agent: AuditEntry.unverifiedAgent, reason: "invalid_signature", count: 51)
        let text = String(decoding: aggregate.canonicalBytes, as: UTF8.self)
        #expect(text.contains(#""count":51"#))
        #expect(try AuditEntry(canonicalBytes: aggregate.canonicalBytes) == aggregate)
        #expect(aggregate.auditEvent(observer: "o").objectValue?["outcomeDesc"] == .string("51 requests refused"))
        for bad in [#""count":0"#, #""count":-1"#, #""count":"51""#] {
            #expect(throws: AuditEntryError.invalidMember("count")) {
                try AuditEntry(canonicalBytes: Array(text.replacingOccurrences(of: #""count":51"#, with: bad).utf8))
            }
        }
    }

    @Test func tamperingIsDetected() throws {
        let text = String(decoding: Self.entry.canonicalBytes, as: UTF8.self)
        // A different spelling of the same content is refused.
        let spaced = text.replacingOccurrences(of: "\"v\":1", with: "\"v\": 1")
        #expect(throws: AuditEntryError.notCanonical) { try AuditEntry(canonicalBytes: Array(spaced.utf8)) }
        // Changed content changes the leaf.
        var changed = Self.entry
        changed.outcome = .minorFailure
        #expect(changed.leafHash != Self.entry.leafHash)
        #expect(throws: AuditEntryError.invalidMember("type")) {
            try AuditEntry(canonicalBytes: Array(text.replacingOccurrences(of: "fhir-access", with: "fhir-accesz").utf8))
        }
        #expect(throws: AuditEntryError.notJSON) { try AuditEntry(canonicalBytes: Array("nope".utf8)) }
    }

    @Test func auditEventResourceCarriesIdentifiersOnly() throws {
        let event = Self.entry.auditEvent(observer: "fhirblocks.example")
        let object = try #require(event.objectValue)
        #expect(object["resourceType"] == .string("AuditEvent"))
        #expect(object["action"] == .string("R") && object["outcome"] == .string("0"))
        #expect(object["agent"]?.arrayValue?.count == 2)
        #expect(object["entity"]?.arrayValue?.count == 2)
        let text = JSONWriter.string(event)
        #expect(text.contains("urn:fhirblocks:permission:p1") && text.contains("urn:fhirblocks:token:t1"))
    }
}
