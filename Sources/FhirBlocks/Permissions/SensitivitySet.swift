/// The sensitive categories a holder may see: a finite whitelist (HEART `sens/` scopes), or
/// every category (only a wallet over its own data).
public struct SensitivitySet: Sendable, Hashable {
    /// The whitelisted codes (ignored when ``isUnrestricted``).
    public private(set) var codes: Set<SensitivityCode>
    /// Whether every category is allowed.
    public let isUnrestricted: Bool

    /// A whitelist.
    public init(_ codes: Set<SensitivityCode>) {
        self.codes = codes
        isUnrestricted = false
    }

    private init(unrestricted: Void) {
        codes = []
        isUnrestricted = true
    }

    /// Every category.
    public static let all = SensitivitySet(unrestricted: ())
    /// No sensitive category.
    public static let none = SensitivitySet([])

    /// Whether `code` is allowed.
    public func contains(_ code: SensitivityCode) -> Bool { isUnrestricted || codes.contains(code) }

    /// Whether every code allowed here is allowed by `other`.
    public func isSubset(of other: SensitivitySet) -> Bool {
        if other.isUnrestricted { return true }
        if isUnrestricted { return false }
        return codes.isSubset(of: other.codes)
    }

    /// The codes allowed by both.
    public func intersection(_ other: SensitivitySet) -> SensitivitySet {
        if isUnrestricted { return other }
        if other.isUnrestricted { return self }
        return SensitivitySet(codes.intersection(other.codes))
    }

    /// The set with ``SecurityLabels/unrecognised`` added: what the patient's own token holds,
    /// so that a label the server does not understand hides a resource from grantees only.
    public var includingUnrecognisedLabels: SensitivitySet {
        isUnrestricted ? self : SensitivitySet(codes.union([SecurityLabels.unrecognised]))
    }

    /// The codes sorted, for output.
    public var sortedCodes: [SensitivityCode] { codes.sorted() }
}
