import Foundation

/// Whether the app may save (share) objects of a type. Read access is never reported.
public enum HKAuthorizationStatus: Int, Sendable, Codable, CaseIterable {
    /// The user has not yet been asked about sharing this type.
    case notDetermined = 0

    /// The user denied sharing this type.
    case sharingDenied = 1

    /// The user allowed sharing this type.
    case sharingAuthorized = 2
}
