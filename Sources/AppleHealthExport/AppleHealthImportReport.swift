import Foundation
import OpenHealthKit

/// What an import of an Apple Health export did: counts only, never values.
public struct AppleHealthImportReport: Sendable, Equatable {
    /// Samples this import stored, by type identifier (a correlation's members under their own
    /// types, beside the correlation).
    public var imported: [String: Int] = [:]
    /// Samples read from the export that the store already had (from an earlier import of the
    /// same export, or an identical line earlier in the file), by type identifier: not stored again.
    public var alreadyStored: [String: Int] = [:]
    /// Elements not imported, by reason (`unknown type HKDataTypeSleepDurationGoal`,
    /// `unsupported element ActivitySummary`, `incompatible unit for HKQuantityTypeIdentifierHeartRate`…).
    public var skipped: [String: Int] = [:]
    /// Characteristics set from the export's `Me` element.
    public var characteristics: Int = 0
    /// Batches committed.
    public var batches: Int = 0
    /// Top-level records not imported because they are a correlation's member, imported inside
    /// it (Apple lists each member twice).
    public var duplicates: Int = 0

    /// Creates an empty report.
    public init() {}

    /// All samples stored.
    public var importedCount: Int { imported.values.reduce(0, +) }
    /// All samples the store already had.
    public var alreadyStoredCount: Int { alreadyStored.values.reduce(0, +) }
    /// All elements not imported.
    public var skippedCount: Int { skipped.values.reduce(0, +) }

    mutating func skip(_ reason: String) { skipped[reason, default: 0] += 1 }

    /// Adds what one save stored and found already stored.
    mutating func add(_ counts: HKSaveCounts) {
        for (type, count) in counts.stored { imported[type, default: 0] += count }
        for (type, count) in counts.alreadyStored { alreadyStored[type, default: 0] += count }
    }
}
