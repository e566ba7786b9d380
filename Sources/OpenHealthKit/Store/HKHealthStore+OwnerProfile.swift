import Foundation

extension HKHealthStore {
    /// The profile of the person the store belongs to (OpenHealthKit API, for the store's owner;
    /// not part of HealthKit). Its date of birth, biological sex and blood type are the
    /// characteristics ``dateOfBirthComponents()``, ``biologicalSex()`` and ``bloodType()``
    /// read; an empty profile when nothing is set.
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func ownerProfile() async throws -> HKOwnerProfile {
        try requireProfileOwner()
        return try await engine.databaseAsync().ownerProfile()
    }

    /// Replaces the profile of the person the store belongs to, in one transaction
    /// (OpenHealthKit API, for the store's owner; not part of HealthKit). Its date of birth,
    /// biological sex and blood type become the characteristics apps read.
    /// - Parameter profile: the whole profile; what it leaves unset is cleared.
    /// - Throws: `errorAuthorizationDenied` for an app; `errorInvalidArgument` when the date of
    ///   birth is not a valid calendar date.
    public func saveOwnerProfile(_ profile: HKOwnerProfile) async throws {
        try requireProfileOwner()
        try await engine.databaseAsync().saveOwnerProfile(profile)
    }

    private func requireProfileOwner() throws {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner can read or change the owner's profile") }
    }
}
