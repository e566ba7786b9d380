import FHIRCore
import Foundation

/// What a sync needs from one page of FHIR search results (a `searchset` Bundle): the link to
/// the next page, the total when given, and the newest `meta.lastUpdated` it carries.
public struct SearchPage: Sendable, Hashable {
    /// `link[relation=next].url`, if any.
    public var next: String?
    /// `total`, if the server counted.
    public var total: Int?
    /// How many entries the page has (resources of every mode).
    public var entryCount: Int
    /// The Bundle's own `meta.lastUpdated` (when the server ran the search).
    public var bundleLastUpdated: String?
    /// The newest `meta.lastUpdated` among the entries' resources.
    public var newestResource: String?

    /// Reads a page; anything but a Bundle is refused.
    public static func parse(_ bytes: [UInt8]) throws(RecordsSyncError) -> SearchPage {
        guard let bundle = (try? JSONParser.parse(bytes))?.objectValue, bundle["resourceType"]?.stringValue == "Bundle" else {
            throw .malformedResponse("a search answer is not a Bundle")
        }
        let next = bundle["link"]?.arrayValue?.first { $0["relation"]?.stringValue == "next" }?["url"]?.stringValue
        let entries = bundle["entry"]?.arrayValue ?? []
        var newest: String?
        for entry in entries {
            guard let text = entry["resource"]?["meta"]?["lastUpdated"]?.stringValue else { continue }
            newest = latest(newest, text)
        }
        let total = bundle["total"]?.doubleValue.flatMap { $0 >= 0 && $0 < Double(Int.max) ? Int($0) : nil }
        return SearchPage(next: next, total: total, entryCount: entries.count,
                          bundleLastUpdated: bundle["meta"]?["lastUpdated"]?.stringValue, newestResource: newest)
    }

    /// The later of two FHIR instants (texts kept as the server wrote them); an unreadable one
    /// loses to a readable one.
    public static func latest(_ a: String?, _ b: String?) -> String? {
        guard let a else { return b }
        guard let b else { return a }
        guard let dateB = date(b) else { return a }
        guard let dateA = date(a) else { return b }
        return dateB > dateA ? b : a
    }

    /// A FHIR instant as a Date.
    static func date(_ text: String) -> Date? {
        guard let instant = try? Instant(text) else { return nil }
        return try? instant.asNSDate()
    }
}
