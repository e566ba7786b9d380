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
public struct PolicyFileAuthorizationProvider: AuthorizationProvider {
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

        /// Creates a policy.
        public init(apps: [String: Grants], default: Grants? = nil) {
            self.apps = apps
            self.default = `default`
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
}
