import Foundation

/// What an app asks for in `requestAuthorization(toShare:read:)`: only the types it has not
/// been asked about before.
public struct AuthorizationRequest: Sendable, Hashable {
    /// The app asking.
    public var bundleIdentifier: String
    /// The app's display name.
    public var appName: String
    /// Identifiers of the types it wants to write.
    public var share: Set<String>
    /// Identifiers of the types it wants to read.
    public var read: Set<String>

    /// Creates a request.
    public init(bundleIdentifier: String, appName: String, share: Set<String>, read: Set<String>) {
        self.bundleIdentifier = bundleIdentifier
        self.appName = appName
        self.share = share
        self.read = read
    }
}

/// The answer to an `AuthorizationRequest`: the types granted; every other requested type is
/// denied. Both answers are stored and never asked again, as in HealthKit.
public struct AuthorizationDecision: Sendable, Hashable {
    /// The types the app may write.
    public var share: Set<String>
    /// The types the app may read.
    public var read: Set<String>

    /// Creates a decision.
    public init(share: Set<String>, read: Set<String>) {
        self.share = share
        self.read = read
    }
}

/// Decides authorization requests: the part of HealthKit that shows the permission sheet.
///
/// OpenHealthKit ships three: ``OwnerConsentAuthorizationProvider`` (grants what is asked, like
/// tapping "Allow"), ``PolicyFileAuthorizationProvider`` (a JSON policy) and
/// ``TerminalAuthorizationProvider`` (asks on the terminal).
public protocol AuthorizationProvider: Sendable {
    /// Decides a request. Throwing fails `requestAuthorization` with that error.
    func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision

    /// Chooses which verifiable clinical records to share with an app for one execution of
    /// ``HKVerifiableClinicalRecordQuery`` (HealthKit's "Share Once" sheet). Only called when
    /// some record matches. The default shares nothing.
    func decideVerifiableRecordShare(_ request: VerifiableRecordShareRequest) async throws -> VerifiableRecordShareDecision

    /// Chooses which objects of a per-object type (vision prescriptions) an app may read, for
    /// `requestPerObjectReadAuthorization(for:predicate:)` (HealthKit's per-object sheet): asked
    /// every time, the objects not chosen are no longer readable. The default chooses none.
    func decidePerObjectRead(_ request: PerObjectReadRequest) async throws -> Set<UUID>
}

/// The default provider for a store owned by the calling user: it grants everything asked,
/// and the store records the decision, as when the owner taps "Allow".
public struct OwnerConsentAuthorizationProvider: AuthorizationProvider {
    /// Creates the provider.
    public init() {}

    public func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        AuthorizationDecision(share: request.share, read: request.read)
    }
}
