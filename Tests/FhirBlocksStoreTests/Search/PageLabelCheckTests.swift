import FhirBlocks
import FhirBlocksStore
import Testing

/// The last label check of a search page reads the page's own JSON, so a version labelled
/// after the candidates were read is not shown: no label means the unlabelled verdict, any
/// label (however its member name is spelled in JSON) is read and judged, and JSON that
/// cannot be read is not shown.
@Suite struct PageLabelCheckTests {
    /// Allows nothing above `N` and no sensitivity, as an app with an `N` ceiling.
    static func ceilingN(_ labels: SecurityLabels) -> Bool {
        labels.sensitivities.isEmpty && (labels.confidentiality ?? .N) <= .N
    }

    static func observation(security: String?) -> [UInt8] {
        let meta = security.map { #","meta":{"security":[\#($0)]}"# } ?? ""
        return Array(#"{"resourceType":"Observation","id":"o1","status":"final"\#(meta)}"#.utf8)
    }

    static let restricted = #"{"system":"http://terminology.hl7.org/CodeSystem/v3-Confidentiality","code":"R"}"#
    static let normal = #"{"system":"http://terminology.hl7.org/CodeSystem/v3-Confidentiality","code":"N"}"#

    @Test func anUnlabelledPageTakesTheUnlabelledVerdict() {
        let json = Self.observation(security: nil)
        #expect(SearchCandidate.labelsAllow(json, isVisible: Self.ceilingN, unlabeledVisible: true))
        #expect(!SearchCandidate.labelsAllow(json, isVisible: Self.ceilingN, unlabeledVisible: false))
    }

    @Test func aLabelInThePagesJSONIsJudged() {
        #expect(!SearchCandidate.labelsAllow(Self.observation(security: Self.restricted), isVisible: Self.ceilingN, unlabeledVisible: true))
        #expect(SearchCandidate.labelsAllow(Self.observation(security: Self.normal), isVisible: Self.ceilingN, unlabeledVisible: true))
    }

    @Test func anEscapedMemberNameIsStillRead() {
        // `\u0073ecurity` is `security`: the byte check must not take it for an unlabelled resource.
        let json = Array(#"{"resourceType":"Observation","id":"o1","meta":{"\u0073ecurity":[\#(Self.restricted)]}}"#.utf8)
        #expect(!SearchCandidate.labelsAllow(json, isVisible: Self.ceilingN, unlabeledVisible: true))
    }

    @Test func unreadableJSONIsNotShown() {
        let json = Array(#"{"resourceType":"Observation","meta":{"security":["#.utf8)
        #expect(!SearchCandidate.labelsAllow(json, isVisible: { _ in true }, unlabeledVisible: true))
    }
}
