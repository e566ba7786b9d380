import Foundation

/// A link the store's owner shared (a SMART Health Link), as the store keeps it: sealed, with
/// what the sharing client needs to update the link later (OpenHealthKit API; HealthKit has no
/// such type).
///
/// The store treats `state` as opaque bytes: the client that shares (the `HealthSharing`
/// module) keeps the link's key and what the link carries there. The whole row, id included,
/// is sealed under its own key; the id is found through a keyed hash.
public struct HKSharedLink: Sendable, Hashable {
    /// The link's id (its manifest URL's last segment), unique in the store.
    public var id: String
    /// What the client keeps about the link.
    public var state: Data

    /// Creates a shared link's record.
    /// - Parameters:
    ///   - id: the link's id.
    ///   - state: what the client keeps about the link.
    public init(id: String, state: Data) {
        self.id = id
        self.state = state
    }
}
