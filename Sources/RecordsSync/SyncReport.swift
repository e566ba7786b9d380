import HealthRecords

/// What one sync did.
public struct SyncReport: Sendable {
    /// The connection synced.
    public var connection: String
    /// Resources fetched per FHIR resource type (what the server sent, clinical or not).
    public var fetchedByType: [String: Int] = [:]
    /// Pages fetched.
    public var pages = 0
    /// Types the server would not search, with why (not permitted by the token, unknown).
    public var skippedTypes: [String: String] = [:]
    /// Whether the server offers `$health-cards-issue`.
    public var cardsOffered = false
    /// The health cards an earlier sync stored from this connection that were deleted because
    /// the server no longer issues them (re-issued for changed data, or withdrawn).
    public var cardsReplaced = 0
    /// Whether the tokens were refreshed.
    public var refreshed = false
    /// What was stored, skipped and refused, as `health records import` reports it.
    public var records = HealthRecordImportReport()

    /// Creates an empty report.
    public init(connection: String) {
        self.connection = connection
    }

    /// Resources fetched in all.
    public var fetched: Int { fetchedByType.values.reduce(0, +) }
}
