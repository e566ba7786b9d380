import Foundation
import HealthPresentation
import OpenHealthKit

/// The Browse pages: every type with data, grouped like the Health app; a type's page with its
/// chart (the last 30 days), its samples with their sources, and deletion by the owner.
struct BrowseView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText
    func index() async throws -> String {
        let newest = try await StoreCatalog.newestSamples(in: store)
        let groups: [[String: Any]] = TypeGroup.allCases.compactMap { group in
            let types = newest.map(\.sampleType).filter { TypeGroup.of($0.identifier) == group }
                .sorted { SampleText.name(of: $0) < SampleText.name(of: $1) }
            guard !types.isEmpty else { return nil }
            return ["id": group.rawValue, "name": group.name,
                    "types": types.map { ["name": SampleText.name(of: $0), "href": StoreCatalog.href($0)] }]
        }
        return pages.render("browse", ["groups": groups])
    }
}
