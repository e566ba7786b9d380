import Foundation

/// Decides authorization from a JSON policy file, for servers and unattended tools.
///
/// ```json
/// {
///   "apps": {
///     "com.example.steps": { "share": ["HKQuantityTypeIdentifierStepCount"], "read": ["*"] }
///   },
///   "default": { "share": [], "read": [] }
/// }
/// ```
/// `"*"` grants every requested type. Apps not listed get `default` (deny all when absent).
///
/// Verifiable clinical records are shared per query by rules: a record is shared when it
/// satisfies every field a rule gives (absent fields match anything) for any rule of the app
/// (`verifiableRecords`) or, for apps not listed, of `defaultVerifiableRecords`. With no rule the
/// query is declined.
///
/// ```json
/// "verifiableRecords": {
///   "com.example.venue": [{ "issuers": ["https://spec.smarthealth.cards/examples/issuer"],
///                           "recordTypes": ["https://smarthealth.cards#immunization"] }]
/// }
/// ```
///
/// Per-object types (vision prescriptions) are read object by object: `perObjectReads` lists,
/// per bundle identifier (or `"*"`), rules of `types` and `records` (UUIDs); the objects a rule
/// matches are shared when the app asks (`requestPerObjectReadAuthorization`), none without one.
public struct PolicyFileAuthorizationProvider: AuthorizationProvider {
    /// Which verifiable records one rule shares: those from one of `issuers`, carrying every
    /// one of `recordTypes`, and among `records` (UUIDs); an absent field matches anything.
    public struct VerifiableRecordRule: Codable, Sendable, Hashable {
        /// Issuer identifiers (`iss` URLs).
        public var issuers: [String]?
        /// Record types the record must all carry.
        public var recordTypes: [String]?
        /// Record UUIDs.
        public var records: [UUID]?

        /// Creates a rule.
        public init(issuers: [String]? = nil, recordTypes: [String]? = nil, records: [UUID]? = nil) {
            self.issuers = issuers
            self.recordTypes = recordTypes
            self.records = records
        }

        func matches(_ record: HKVerifiableClinicalRecord) -> Bool {
            if let issuers, !issuers.contains(record.issuerIdentifier) { return false }
            if let recordTypes, !recordTypes.allSatisfy(record.recordTypes.contains) { return false }
            if let records, !records.contains(record.uuid) { return false }
            return true
        }
    }

    /// One app's grants.
    public struct Grants: Codable, Sendable, Hashable {
        /// Types the app may write, or `"*"`.
        public var share: [String]
        /// Types the app may read, or `"*"`.
        public var read: [String]

        /// Creates grants.
        public init(share: [String], read: [String]) {
            self.share = share
            self.read = read
        }
    }

    /// The parsed policy.
    public struct Policy: Codable, Sendable, Hashable {
        /// Grants per bundle identifier.
        public var apps: [String: Grants]
        /// Grants for apps not listed.
        public var `default`: Grants?
        /// Verifiable-record rules per bundle identifier.
        public var verifiableRecords: [String: [VerifiableRecordRule]]?
        /// Verifiable-record rules for apps not listed in `verifiableRecords`.
        public var defaultVerifiableRecords: [VerifiableRecordRule]?
        /// Per-object read rules (vision prescriptions) per bundle identifier; `"*"` for apps not listed.
        public var perObjectReads: [String: [PerObjectReadRule]]?

        /// Creates a policy.
        public init(apps: [String: Grants], default: Grants? = nil, verifiableRecords: [String: [VerifiableRecordRule]]? = nil,
                    defaultVerifiableRecords: [VerifiableRecordRule]? = nil, perObjectReads: [String: [PerObjectReadRule]]? = nil) {
            self.apps = apps
            self.default = `default`
            self.verifiableRecords = verifiableRecords
            self.defaultVerifiableRecords = defaultVerifiableRecords
            self.perObjectReads = perObjectReads
        }
    }

    /// The policy this provider applies.
    public let policy: Policy

    /// Reads a policy file.
    /// - Throws: `HKError.errorInvalidArgument` naming the file when it is unreadable or malformed.
    public init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw HKError(.errorInvalidArgument, "cannot read the authorization policy \(url.path)")
        }
        do {
            policy = try JSONDecoder().decode(Policy.self, from: data)
        } catch {
            throw HKError(.errorInvalidArgument, "the authorization policy \(url.path) is malformed: \(error)")
        }
    }

    /// Uses a policy given in code.
    public init(policy: Policy) {
        self.policy = policy
    }

    public func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        let grants = policy.apps[request.bundleIdentifier] ?? policy.default ?? Grants(share: [], read: [])
        func granted(_ asked: Set<String>, _ allowed: [String]) -> Set<String> {
            allowed.contains("*") ? asked : asked.intersection(allowed)
        }
        return AuthorizationDecision(share: granted(request.share, grants.share), read: granted(request.read, grants.read))
    }

    public func decideVerifiableRecordShare(_ request: VerifiableRecordShareRequest) async throws -> VerifiableRecordShareDecision {
        guard let rules = policy.verifiableRecords?[request.bundleIdentifier] ?? policy.defaultVerifiableRecords, !rules.isEmpty else {
            return .decline
        }
        return .share(Set(request.records.filter { record in rules.contains { $0.matches(record) } }.map(\.uuid)))
    }
}
