import CommonSupport
import Testing

@Suite("HTML escaping")
struct HTMLTextTests {
    @Test("the five characters that matter become references; everything else is kept")
    func escape() {
        #expect(HTMLText.escape("<a href=\"x\">Tom & 'Jerry'</a> é") == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt; é")
        #expect(HTMLText.escape("") == "")
        #expect(HTMLText.escape("&amp;") == "&amp;amp;")
    }
}
