import Foundation

/// One execution of ``HKVerifiableClinicalRecordQuery`` by an app: the records that match it,
/// for the person (through the store's ``AuthorizationProvider``) to choose from. Nothing
/// lasting is granted: the next execution asks again.
public struct VerifiableRecordShareRequest: Sendable {
    /// The app asking.
    public var bundleIdentifier: String
    /// The app's display name.
    public var appName: String
    /// The record types the app asked for; every record carries all of them.
    public var recordTypes: [String]
    /// The matching records, oldest relevant date first.
    public var records: [HKVerifiableClinicalRecord]

    /// Creates a request.
    public init(bundleIdentifier: String, appName: String, recordTypes: [String], records: [HKVerifiableClinicalRecord]) {
        self.bundleIdentifier = bundleIdentifier
        self.appName = appName
        self.recordTypes = recordTypes
        self.records = records
    }
}

/// The person's answer to a ``VerifiableRecordShareRequest``.
public enum VerifiableRecordShareDecision: Sendable, Hashable {
    /// Share these records (UUIDs of the request's records; others are ignored) this once.
    case share(Set<UUID>)
    /// Share nothing: the query fails with `HKError.errorUserCanceled`.
    case decline
}

/// One recorded execution of a verifiable-record query by an app (OpenHealthKit API: the owner's
/// history of what was shared with whom).
public struct HKVerifiableRecordShare: Sendable, Hashable {
    /// The app's bundle identifier.
    public var bundleIdentifier: String
    /// The app's display name.
    public var appName: String
    /// When it was asked.
    public var date: Date
    /// The records shared (empty when declined).
    public var recordUUIDs: [UUID]
    /// Whether the person declined.
    public var declined: Bool
}

extension AuthorizationProvider {
    /// By default a provider shares no verifiable record: sharing them is always a person's or
    /// a policy's explicit choice.
    public func decideVerifiableRecordShare(_ request: VerifiableRecordShareRequest) async throws -> VerifiableRecordShareDecision {
        .decline
    }
}

extension OwnerConsentAuthorizationProvider {
    /// The owner's consent shares every matching record, as tapping "Share All".
    public func decideVerifiableRecordShare(_ request: VerifiableRecordShareRequest) async throws -> VerifiableRecordShareDecision {
        .share(Set(request.records.map(\.uuid)))
    }
}
