/// Server policy for security-label filtering (§2.7).
public struct LabelPolicy: Sendable, Hashable {
    /// The confidentiality an unlabelled resource is treated as (default `N`, normal).
    public var unlabelledConfidentiality: ConfidentialityLevel
    /// The ceiling of a token that asked for no `conf/` scope (default `N`: unlabelled and normal
    /// data visible, R and V hidden).
    public var defaultCeiling: ConfidentialityLevel

    /// Creates a policy.
    public init(unlabelledConfidentiality: ConfidentialityLevel = .N, defaultCeiling: ConfidentialityLevel = .N) {
        self.unlabelledConfidentiality = unlabelledConfidentiality
        self.defaultCeiling = defaultCeiling
    }

    /// The default policy.
    public static let `default` = LabelPolicy()
}
