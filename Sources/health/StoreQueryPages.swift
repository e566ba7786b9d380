import Foundation
import OpenHealthKit

/// Reads the samples of one query page by page, in start-date order, so a command holds one
/// page at a time however many samples match: `health store query` writes each page before it
/// reads the next.
///
/// Each page is a sample query with a limit (`HKSampleQueryDescriptor`) that starts where the
/// previous page ended: at or before its last start date (newest first), or at or after it
/// (oldest first). The store orders samples of the same start date the same way in every read,
/// so the samples already written at that date come first in the next page and are skipped by
/// their UUIDs. Pages are separate reads: a sample saved or deleted while a long query runs may
/// or may not be listed, as with a query run a moment earlier or later.
struct SamplePages {
    /// The store read.
    let store: HKHealthStore
    /// The type read.
    let type: HKSampleType
    /// The caller's predicate (dates), combined with each page's bound.
    let predicate: NSPredicate?
    /// Oldest first, else newest first.
    let ascending: Bool
    /// At most this many samples in all; 0 means all.
    let limit: Int
    /// Samples per read.
    let pageSize: Int

    /// Calls `body` with each page, in order, and returns the number of pages read (a read
    /// that finds nothing counts as one).
    @discardableResult
    func forEachPage(_ body: ([HKSample]) async throws -> Void) async throws -> Int {
        var remaining = limit == 0 ? Int.max : limit
        var cursor: Date?
        // The UUIDs already written whose start date is `cursor`: bounded by the samples that
        // share one start date.
        var writtenAtCursor = Set<UUID>()
        var reads = 0
        while remaining > 0 {
            let wanted = min(pageSize, remaining)
            let requested = writtenAtCursor.count + wanted
            let descriptor = HKSampleQueryDescriptor(
                predicates: [.sample(type: type, predicate: pagePredicate(after: cursor))],
                sortDescriptors: [SortDescriptor(\.startDate, order: ascending ? .forward : .reverse)],
                limit: requested)
            let read = try await descriptor.result(for: store)
            reads += 1
            var page = read.filter { !($0.startDate == cursor && writtenAtCursor.contains($0.uuid)) }
            if page.count > wanted { page.removeLast(page.count - wanted) }
            guard let last = page.last else { break }
            try await body(page)
            remaining -= page.count
            if last.startDate != cursor {
                cursor = last.startDate
                writtenAtCursor.removeAll()
            }
            for sample in page where sample.startDate == last.startDate { writtenAtCursor.insert(sample.uuid) }
            // A short read is the last one.
            if read.count < requested { break }
        }
        return max(reads, 1)
    }

    /// The caller's predicate and the page's bound: start date at or after `cursor` (oldest
    /// first) or at or before it (newest first; the store's bound is "before", so the next
    /// representable instant).
    private func pagePredicate(after cursor: Date?) -> NSPredicate? {
        guard let cursor else { return predicate }
        let bound = ascending
            ? HKQuery.predicateForSamples(withStart: cursor, end: nil, options: .strictStartDate)
            : HKQuery.predicateForSamples(withStart: nil, end: Date(timeIntervalSinceReferenceDate: cursor.timeIntervalSinceReferenceDate.nextUp))
        guard let predicate else { return bound }
        return NSCompoundPredicate(andPredicateWithSubpredicates: [predicate, bound])
    }
}
