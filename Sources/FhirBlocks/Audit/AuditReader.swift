/// Who reads the audit log, and whose entries they may read (§4.2).
///
/// The log stays publicly verifiable (signed checkpoints, leaf hashes, inclusion and
/// consistency proofs are for everyone), but an entry's content says who saw whose data, so it
/// is released only to the patient it concerns, to the agent that acted, and to auditors.
public enum AuditReader: Sendable, Hashable {
    /// No credentials: leaf hashes and proofs only.
    case anonymous
    /// A client reading for itself (a grantee's token): the entries where it is the agent.
    case agent(CsiGuid)
    /// A patient's wallet over its own data: the entries about that patient, and the wallet's
    /// own actions.
    case patient(CsiGuid)
    /// A client the server lists as an auditor, with the auditor scope: every entry.
    case auditor

    /// Whether this reader may see `entry`'s content.
    public func maySee(_ entry: AuditEntry) -> Bool {
        switch self {
        case .anonymous: false
        case .agent(let csi): entry.agent == csi.rawValue
        case .patient(let csi): entry.patient == csi.rawValue || entry.agent == csi.rawValue
        case .auditor: true
        }
    }
}
