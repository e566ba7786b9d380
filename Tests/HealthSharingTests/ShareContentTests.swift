import Foundation
import HealthSharing
import Testing

@Suite struct ShareContentTests {
    @Test func partsWithTheSameChoiceAreEqualAndOthersAreNot() {
        let id = UUID()
        #expect(ShareContent.card(id) == .card(id))
        #expect(ShareContent.card(id) != .record(id))
        #expect(Set([ShareContent.summary, .summary, .cards]).count == 2)
    }
}
