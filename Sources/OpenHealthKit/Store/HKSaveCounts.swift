import Foundation

/// What a save by the store's owner did with each object it was given (OpenHealthKit API):
/// how many were stored and how many were already in the store, by type identifier.
///
/// A correlation's members are counted under their own types, beside the correlation. An
/// object whose sync identifier (scoped to its source) is already stored with the same or a
/// higher sync version is already in the store, and so is a second identical object in the
/// same save; an activity summary identical to the one stored for its day and source is too.
/// An object that replaces an older version of itself is stored, and counted in ``replaced`` as well.
public struct HKSaveCounts: Sendable, Equatable {
    /// Objects stored by this save, by type identifier.
    public var stored: [String: Int] = [:]
    /// Objects not stored because the store already had them, by type identifier.
    public var alreadyStored: [String: Int] = [:]
    /// Of the stored objects, those that replaced an older version of themselves, by type identifier.
    public var replaced: [String: Int] = [:]

    /// The objects given to this save that the store already had, by UUID, for the objects it
    /// compares by content: health records (``HKHealthStore/saveHealthRecords(_:source:)``) and
    /// activity summaries. Empty for other samples, which are counted only.
    public var alreadyStoredObjects: Set<UUID> = []

    /// Creates empty counts.
    public init() {}

    /// All objects stored.
    public var storedCount: Int { stored.values.reduce(0, +) }
    /// All objects the store already had.
    public var alreadyStoredCount: Int { alreadyStored.values.reduce(0, +) }
    /// All stored objects that replaced an older version.
    public var replacedCount: Int { replaced.values.reduce(0, +) }

    /// Adds other counts to these.
    /// - Parameter other: The counts to add.
    public mutating func add(_ other: HKSaveCounts) {
        for (type, count) in other.stored { stored[type, default: 0] += count }
        for (type, count) in other.alreadyStored { alreadyStored[type, default: 0] += count }
        for (type, count) in other.replaced { replaced[type, default: 0] += count }
        alreadyStoredObjects.formUnion(other.alreadyStoredObjects)
    }
}

/// Counts a save's rows as they are written: rows come in runs of one type, so each run's
/// count is kept aside and added to the dictionary when the type changes.
struct SaveCounter: Sendable {
    private(set) var counts = HKSaveCounts()
    private var run: (type: String, count: Int)?

    /// A stored row (top-level or member).
    mutating func stored(_ type: String) {
        if let current = run, current.type == type {
            run = (type, current.count + 1)
            return
        }
        flush()
        run = (type, 1)
    }

    /// A top-level sample (and its members) the store already had.
    mutating func alreadyStored(_ sample: PreparedSample) {
        counts.alreadyStored[sample.type, default: 0] += 1
        for member in sample.members { alreadyStored(member) }
    }

    /// A top-level object compared by content that the store already had (its UUID is kept).
    mutating func alreadyStoredObject(_ sample: PreparedSample) {
        alreadyStored(sample)
        counts.alreadyStoredObjects.insert(sample.uuid)
    }

    /// A top-level sample that replaced an older version of itself.
    mutating func replaced(_ type: String) { counts.replaced[type, default: 0] += 1 }

    /// The counts, with the current run added.
    mutating func finish() -> HKSaveCounts {
        flush()
        return counts
    }

    private mutating func flush() {
        if let current = run { counts.stored[current.type, default: 0] += current.count }
        run = nil
    }
}
