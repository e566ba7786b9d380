/// Where a page starts: just after the result with this sort key and id. Paging by key rather
/// than by offset keeps pages stable while resources are written: nothing is shown twice, and
/// nothing that matched before the first page is skipped unless it changed.
public struct SearchCursor: Sendable, Hashable {
    /// The sort key of the last result shown (nil for `_id` order or a missing value).
    public var key: Int64?
    /// The id of the last result shown.
    public var id: String

    /// A cursor.
    public init(key: Int64?, id: String) {
        self.key = key
        self.id = id
    }

    /// Reads the `_cursor` text: `<key>.<id>` or `.<id>`.
    public init?(text: String) {
        guard let dot = text.firstIndex(of: ".") else { return nil }
        let keyText = text[..<dot]
        let id = String(text[text.index(after: dot)...])
        guard !id.isEmpty, id.utf8.count <= 64 else { return nil }
        if keyText.isEmpty {
            key = nil
        } else {
            guard let number = Int64(keyText) else { return nil }
            key = number
        }
        self.id = id
    }

    /// The `_cursor` text.
    public var text: String { (key.map(String.init) ?? "") + "." + id }
}

/// A result's place in the order: its sort key (nil sorts last either way), then its id (in
/// the same direction, bytewise).
public struct SearchSortPosition: Sendable, Hashable {
    /// The sort key.
    public var key: Int64?
    /// The id.
    public var id: String

    /// A position.
    public init(key: Int64?, id: String) {
        self.key = key
        self.id = id
    }

    /// Whether `self` comes before `other` in `sort`'s order.
    public func precedes(_ other: SearchSortPosition, descending: Bool) -> Bool {
        switch (key, other.key) {
        case let (left?, right?) where left != right: return descending ? left > right : left < right
        case (nil, _?): return false
        case (_?, nil): return true
        default:
            return descending ? other.id.utf8.lexicographicallyPrecedes(id.utf8) : id.utf8.lexicographicallyPrecedes(other.id.utf8)
        }
    }

    /// Whether `self` comes after the cursor.
    public func follows(_ cursor: SearchCursor, descending: Bool) -> Bool {
        SearchSortPosition(key: cursor.key, id: cursor.id).precedes(self, descending: descending)
    }
}
