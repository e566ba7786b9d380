import ExactJSON
import FhirBlocks
import Testing
import TestSupport
@testable import FhirBlocksServer

/// A stored resource's labels read without parsing when its bytes cannot hold any agree with
/// the labels of the parsed resource.
@Suite struct StoredLabelsTests {
    static func parsed(_ json: String) -> SecurityLabels? {
        (try? JSONParser.parse(Array(json.utf8))).map { SecurityLabels(resource: $0) }
    }

    static let codings = [
        #"{"system":"http://terminology.hl7.org/CodeSystem/v3-Confidentiality","code":"R"}"#,
        #"{"system":"http://terminology.hl7.org/CodeSystem/v3-Confidentiality","code":"N"}"#,
        #"{"system":"urn:oid:2.16.840.1.113883.5.25","code":"V"}"#,
        #"{"system":"http://terminology.hl7.org/CodeSystem/v3-ActCode","code":"HIV"}"#,
        #"{"system":"http://terminology.hl7.org/CodeSystem/v3-ActCode","code":"PSY"}"#,
        #"{"code":"R"}"#,
        #"{"system":"http://example.org/other","code":"x"}"#,
    ]

    /// A random Observation: no meta, meta without labels, or labels under `security` spelled
    /// plainly or with an escape, and the word in a string value or not.
    static func resource(_ random: inout SplitMix64) -> String {
        var members = [#""resourceType":"Observation""#, #""id":"o\#(random.below(1000))""#, #""status":"final""#]
        let key = random.chance(0.2) ? #""\u0073ecurity""# : #""security""#
        switch random.below(3) {
        case 0: break
        case 1: members.append(#""meta":{"versionId":"1"}"#)
        default:
            let labels = (0..<random.int(0...3)).map { _ in codings[random.below(codings.count)] }
            members.append(#""meta":{"versionId":"1",\#(key):[\#(labels.joined(separator: ","))]}"#)
        }
        if random.chance(0.3) { members.append(#""code":{"text":"security screening"}"#) }
        if random.chance(0.2) { members.append(#""note":[{"text":"a \"quoted\" word"}]"#) }
        return "{" + members.shuffled(using: &random).joined(separator: ",") + "}"
    }

    @Test func agreesWithTheParsedResource() {
        var random = SplitMix64(seed: 15)
        for _ in 0..<500 {
            let json = Self.resource(&random)
            #expect(FHIRController.storedLabels(Array(json.utf8)) == Self.parsed(json), "\(json)")
        }
    }

    @Test func labelledOrEscapedResourcesAreParsed() {
        let labelled = #"{"resourceType":"Observation","meta":{"security":[\#(Self.codings[0]),\#(Self.codings[3])]}}"#
        #expect(FHIRController.storedLabels(Array(labelled.utf8))?.confidentiality == .R)
        let escaped = #"{"resourceType":"Observation","meta":{"\u0073ecurity":[\#(Self.codings[2])]}}"#
        #expect(FHIRController.storedLabels(Array(escaped.utf8))?.confidentiality == .V)
        // Bytes that could hold labels but do not parse have none to give: nil, refused.
        #expect(FHIRController.storedLabels(Array(#"{"meta":{"security":["#.utf8)) == nil)
    }
}
