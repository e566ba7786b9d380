/// How far a sync has gone, after each committed page.
public struct SyncProgress: Sendable, Hashable {
    /// The resource type being synced.
    public var resourceType: String
    /// Its position among the types (0-based) and how many there are.
    public var typeIndex: Int
    /// How many types the sync searches.
    public var typeCount: Int
    /// Resources of this type fetched so far, and the server's total when it said.
    public var fetchedOfType: Int
    /// The server's total for this type's search, when given.
    public var totalOfType: Int?
    /// Resources fetched in the whole sync so far.
    public var fetched: Int

    /// The fraction done, counting each type as an equal share.
    public var fraction: Double {
        guard typeCount > 0 else { return 1 }
        var within = 0.0
        if let totalOfType, totalOfType > 0 { within = min(1, Double(fetchedOfType) / Double(totalOfType)) }
        return min(1, (Double(typeIndex) + within) / Double(typeCount))
    }
}
