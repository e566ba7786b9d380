import Foundation

/// Whether asking the user for authorization would show them anything new.
public enum HKAuthorizationRequestStatus: Int, Sendable, Codable, CaseIterable {
    /// The status could not be determined because an error occurred.
    case unknown = 0

    /// The app should request authorization: at least one type has not been asked about.
    case shouldRequest = 1

    /// Every requested type has already been asked about.
    case unnecessary = 2
}
