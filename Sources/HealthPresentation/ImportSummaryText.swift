import OpenHealthKit

/// The words of an import's summary, the same in `health import apple-health` and on the web
/// page's import: what this run stored, what the store already had (found again, not stored
/// twice), what was not imported and why, by type.
public struct ImportSummaryText: Sendable, Equatable {
    /// One type's counts.
    public struct TypeCounts: Sendable, Equatable {
        /// The type's name as shown.
        public let name: String
        /// The type identifier.
        public let identifier: String
        /// Samples this run stored.
        public let stored: Int
        /// Samples the store already had.
        public let alreadyStored: Int

        /// The counts in words: `3 stored, 2 already in the store`.
        public var words: String {
            var parts: [String] = []
            if stored > 0 { parts.append("\(stored) stored") }
            if alreadyStored > 0 { parts.append("\(alreadyStored) already in the store") }
            return parts.joined(separator: ", ")
        }
    }

    /// Samples this run stored.
    public let storedCount: Int
    /// Samples the store already had.
    public let alreadyStoredCount: Int
    /// Elements not imported, by reason, sorted by reason.
    public let notImported: [(reason: String, count: Int)]
    /// Batches committed.
    public let batches: Int
    /// Correlation members Apple also lists on their own, imported once.
    public let duplicates: Int
    /// The types with a sample stored or found again, sorted by name.
    public let types: [TypeCounts]

    /// The words of an import's counts.
    /// - Parameters:
    ///   - stored: samples stored, by type identifier.
    ///   - alreadyStored: samples the store already had, by type identifier.
    ///   - notImported: elements not imported, by reason.
    ///   - batches: batches committed.
    ///   - duplicates: correlation members listed twice by Apple, imported once.
    ///   - name: a type identifier's name as shown (default: the name people use,
    ///     `HealthTypes.personName(forIdentifier:)`: "Weight", "Activity Rings", "Workout Routes").
    public init(stored: [String: Int], alreadyStored: [String: Int], notImported: [String: Int], batches: Int, duplicates: Int,
                name: (String) -> String = { HealthTypes.personName(forIdentifier: $0) }) {
        storedCount = stored.values.reduce(0, +)
        alreadyStoredCount = alreadyStored.values.reduce(0, +)
        self.notImported = notImported.sorted { $0.key < $1.key }.map { (reason: $0.key, count: $0.value) }
        self.batches = batches
        self.duplicates = duplicates
        types = Set(stored.keys).union(alreadyStored.keys)
            .map { TypeCounts(name: name($0), identifier: $0, stored: stored[$0] ?? 0, alreadyStored: alreadyStored[$0] ?? 0) }
            .filter { $0.stored > 0 || $0.alreadyStored > 0 }
            .sorted { ($0.name, $0.identifier) < ($1.name, $1.identifier) }
    }

    /// Elements not imported.
    public var notImportedCount: Int { notImported.reduce(0) { $0 + $1.count } }

    /// The first line: `Imported 4 samples in 1 batch; 0 already in the store; 2 not imported.`
    public var headline: String {
        "Imported \(Self.samples(storedCount)) in \(batches) batch\(batches == 1 ? "" : "es"); \(alreadyStoredCount) already in the store; "
            + "\(notImportedCount) not imported."
    }

    /// The line about correlation members Apple lists twice, or nil when there were none.
    public var duplicatesLine: String? {
        duplicates > 0 ? "Correlation members Apple also lists as records, imported once: \(duplicates)." : nil
    }

    /// The headline, the duplicates line and a line a type (`  Body Mass: 2 stored`).
    public var lines: [String] {
        [headline] + (duplicatesLine.map { [$0] } ?? []) + types.map { "  \($0.name): \($0.words)" }
    }

    /// `1 sample`, `4 samples`.
    public static func samples(_ count: Int) -> String {
        "\(count) sample\(count == 1 ? "" : "s")"
    }

    public static func == (lhs: ImportSummaryText, rhs: ImportSummaryText) -> Bool {
        lhs.lines == rhs.lines && lhs.notImported.map(\.reason) == rhs.notImported.map(\.reason)
            && lhs.notImported.map(\.count) == rhs.notImported.map(\.count)
    }
}
