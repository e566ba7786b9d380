import Foundation
import HealthPresentation
import OpenHealthKit

/// The Browse pages: every type with data, grouped like the Health app; a type's page with its
/// chart (the last 30 days), its samples with their sources, and deletion by the owner.
struct BrowseView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText
    /// Every type the store knows, grouped, with a search (`TypeGroup.index`).
    func index(search: String? = nil) async throws -> String {
        TypeGroup.index(newest: try await StoreCatalog.newestSamples(in: store), text: text, search: search)
    }
}
