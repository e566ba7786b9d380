import HealthWebApp
import Testing
import TestSupport

@Suite("Form bodies")
struct FormFieldsTests {
    @Test("names and values are decoded; the first of a repeated name wins")
    func decoding() {
        let form = FormFields("csrf=ab%2Fc&uuid=1234&note=a+b%26c&empty=&flag&csrf=second")
        #expect(form["csrf"] == "ab/c")
        #expect(form["uuid"] == "1234")
        #expect(form["note"] == "a b&c")
        #expect(form["empty"] == "")
        #expect(form["flag"] == "")
        #expect(form["missing"] == nil)
    }

    @Test("malformed escapes are kept as written, never a crash (fuzzed)")
    func fuzz() {
        #expect(FormFields("a=%zz%")["a"] == "%zz%")
        var random = SplitMix64(seed: 7)
        let alphabet = Array("ab=&%+2F0zé\u{0}")
        for _ in 0..<2_000 {
            let text = String((0..<random.int(0...40)).map { _ in alphabet[random.below(alphabet.count)] })
            let form = FormFields(text)
            #expect(form.values.count <= text.count)
        }
    }
}
