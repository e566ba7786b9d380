import Foundation

extension HKHealthStore {
    /// Every link the owner shared that the store keeps, by id (OpenHealthKit API, for the
    /// store's owner).
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func sharedLinks() async throws -> [HKSharedLink] {
        try requireSharedLinkOwner()
        return try await engine.databaseAsync().sharedLinks()
    }

    /// The shared link of that id, if the store keeps it (OpenHealthKit API, for the store's owner).
    /// - Parameter id: the link's id.
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func sharedLink(id: String) async throws -> HKSharedLink? {
        try requireSharedLinkOwner()
        return try await engine.databaseAsync().sharedLink(id: id)
    }

    /// Saves a shared link, replacing the one of the same id (OpenHealthKit API, for the store's owner).
    /// - Parameter link: the link and what the sharing client keeps about it.
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func saveSharedLink(_ link: HKSharedLink) async throws {
        try requireSharedLinkOwner()
        try await engine.databaseAsync().saveSharedLink(link)
    }

    /// Forgets a shared link; whether there was one of that id (OpenHealthKit API, for the
    /// store's owner).
    /// - Parameter id: the link's id.
    /// - Throws: `errorAuthorizationDenied` for an app.
    @discardableResult
    public func removeSharedLink(id: String) async throws -> Bool {
        try requireSharedLinkOwner()
        return try await engine.databaseAsync().removeSharedLink(id: id)
    }

    private func requireSharedLinkOwner() throws {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner can manage shared links") }
    }
}
