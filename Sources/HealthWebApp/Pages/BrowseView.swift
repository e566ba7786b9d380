import Foundation
import HealthPresentation
import OpenHealthKit

/// The Browse pages: every type with data, grouped like the Health app; a type's page with its
/// chart (the last 30 days), its samples with their sources, and deletion by the owner.
struct BrowseView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText
    /// Every type the store knows, grouped, with a search (`TypeGroup.index`); each type with
    /// data shows what the Health app shows (``TypeHeadline``: a day's total, a night's sleep,
    /// the latest value) as of `now`.
    func index(search: String? = nil, now: Date) async throws -> String {
        let newest = try await StoreCatalog.newestSamples(in: store).filter { TypeGroup.listed($0.sampleType) }
        var headlines: [String: TypeHeadline] = [:]
        for sample in newest {
            headlines[sample.sampleType.identifier] = try await TypeHeadline.load(sample.sampleType, newest: sample, in: store, now: now, text: text)
        }
        return TypeGroup.index(headlines: headlines, search: search)
    }
}
