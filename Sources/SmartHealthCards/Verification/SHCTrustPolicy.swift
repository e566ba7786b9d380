/// Which issuers a verifier trusts (rules 36 and 55). Anyone can issue a card; trust is policy.
///
/// X.509 PKI trust frameworks (rule 10) are not supported: `x5c` is checked structurally only.
public struct SHCTrustPolicy: Sendable {
    /// The outcome for one issuer.
    public struct Decision: Sendable, Hashable, Encodable {
        /// Whether the issuer is trusted.
        public var trusted: Bool
        /// The issuer's display name when the policy knows it.
        public var name: String?
    }

    private enum Source: Sendable {
        case directory(VCIDirectory)
        case issuers(Set<String>)
        case anyOf([SHCTrustPolicy])
    }

    private let source: Source

    private init(_ source: Source) {
        self.source = source
    }

    /// Trusts exactly the issuers listed in a VCI directory (exact `iss` match).
    public static func directory(_ directory: VCIDirectory) -> SHCTrustPolicy {
        SHCTrustPolicy(.directory(directory))
    }

    /// Trusts exactly these issuer URLs.
    public static func issuers(_ issuers: some Sequence<String>) -> SHCTrustPolicy {
        SHCTrustPolicy(.issuers(Set(issuers)))
    }

    /// Trusts an issuer when any of the policies does.
    public static func anyOf(_ policies: [SHCTrustPolicy]) -> SHCTrustPolicy {
        SHCTrustPolicy(.anyOf(policies))
    }

    /// Decides whether `issuer` is trusted.
    public func evaluate(issuer: String) -> Decision {
        switch source {
        case .directory(let directory):
            let entry = directory.issuer(for: issuer)
            return Decision(trusted: entry != nil, name: entry?.name)
        case .issuers(let issuers):
            return Decision(trusted: issuers.contains(issuer), name: nil)
        case .anyOf(let policies):
            var untrusted = Decision(trusted: false, name: nil)
            for policy in policies {
                let decision = policy.evaluate(issuer: issuer)
                if decision.trusted { return decision }
                untrusted.name = untrusted.name ?? decision.name
            }
            return untrusted
        }
    }
}
