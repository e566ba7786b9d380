import SmartHealthLinks
import Testing

struct SHLContentTypeTests {
    @Test("A content type's media type drops its parameters and letter case", arguments: [
        ("application/fhir+json;fhirVersion=4.0.1", "application/fhir+json"),
        (" Application/Smart-Health-Card ; charset=utf-8", "application/smart-health-card"),
        ("application/fhir+json", "application/fhir+json"),
        (";", ""),
        ("", ""),
    ])
    func mediaType(_ contentType: String, _ expected: String) {
        #expect(SHLContentType.mediaType(of: contentType) == expected)
    }

    @Test func noContentTypeHasNoMediaType() {
        #expect(SHLContentType.mediaType(of: nil) == nil)
    }
}
