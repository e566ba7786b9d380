import Foundation

/// Changes read for an anchored query, each tagged with its change number.
struct ChangeBatch {
    var added: [(anchor: Int64, sample: HKSample)] = []
    var deleted: [(anchor: Int64, object: HKDeletedObject)] = []

    /// Merges batches read under the same upper bound, keeps the first `limit` changes in
    /// change order (0 = all), and returns the anchor to continue from: the last change
    /// returned when the limit cut the list, else `through`.
    static func merge(_ batches: [ChangeBatch], limit: Int, through: Int64)
        -> (samples: [HKSample], deleted: [HKDeletedObject], anchor: Int64) {
        var events: [(anchor: Int64, sample: HKSample?, deleted: HKDeletedObject?)] = []
        // Each change number is one change: descriptors that overlap must not repeat it.
        var seen = Set<Int64>()
        for batch in batches {
            events += batch.added.filter { seen.insert($0.anchor).inserted }.map { ($0.anchor, $0.sample, nil) }
            events += batch.deleted.filter { seen.insert($0.anchor).inserted }.map { ($0.anchor, nil, $0.object) }
        }
        events.sort { $0.anchor < $1.anchor }
        var anchor = through
        if limit > 0, events.count > limit {
            events = Array(events.prefix(limit))
            anchor = events.last?.anchor ?? through
        } else if limit > 0, batches.contains(where: { $0.added.count >= limit || $0.deleted.count >= limit }) {
            // A batch may have been cut by SQL's LIMIT: continue from the last change returned.
            anchor = events.last?.anchor ?? through
        }
        return (events.compactMap(\.sample), events.compactMap(\.deleted), anchor)
    }
}
