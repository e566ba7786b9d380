import Foundation

/// What an import of an Apple Health export did: counts only, never values.
public struct AppleHealthImportReport: Sendable, Equatable {
    /// Samples saved (or already stored by an earlier run of the same import), by type identifier.
    public var imported: [String: Int] = [:]
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

    /// All samples saved.
    public var importedCount: Int { imported.values.reduce(0, +) }
    /// All elements not imported.
    public var skippedCount: Int { skipped.values.reduce(0, +) }

    mutating func skip(_ reason: String) { skipped[reason, default: 0] += 1 }
}
