import FhirBlocks
import Foundation
import Testing

/// Shapes that made form, scope and grantee parsing quadratic before authentication (issue 14):
/// they must be read in one pass, and still refuse what is wrong.
@Suite("Adversarial forms, scopes and grantees")
struct AdversarialFormTests {
    @Test("a form of 100,000 fields parses, and a repeat at the very end is still refused")
    func manyFields() throws {
        let fields = (0..<100_000).map { "f\($0)=v" }.joined(separator: "&")
        let form = try FormBody.parse(Array(fields.utf8), mode: .strict).value
        #expect(form.fields.count == 100_000)
        #expect(form["f99999"] == "v")
        #expect(throws: SMOACError.self) { try FormBody.parse(Array((fields + "&f0=again").utf8), mode: .strict) }
        // A repeat spelled with an escape is the same name.
        #expect(throws: SMOACError.self) { try FormBody.parse(Array((fields + "&%660=x").utf8), mode: .compat) }
    }

    @Test("a scope string of 40,000 scopes keeps each distinct scope once, in order, and every malformed one")
    func longScopes() {
        let text = (0..<10_000).flatMap { _ in ["patient/Observation.read", "patient/Condition.rs", "conf/R", "conf/X"] }.joined(separator: " ")
        let request = ScopeRequest(text)
        #expect(request.scopes.map(\.description) == ["patient/Observation.read", "patient/Condition.rs", "conf/R"])
        #expect(request.malformed.count == 10_000)
    }
}
