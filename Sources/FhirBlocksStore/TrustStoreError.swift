/// Why a ``TrustStore`` call failed. Descriptions name tables and identifiers, never patient
/// data.
public enum TrustStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The csiGuid is already bound to a key (first-come binding, §1.4).
    case alreadyRegistered(String)
    /// A resource was written concurrently; retry.
    case conflict(String)
    /// A stored value could not be read back (the table and key are named).
    case corrupt(String)
    /// The database failed or is unreachable.
    case unavailable(String)
    /// A statement ran past its time budget (``SearchQuery/timeBudget``) and was stopped: the
    /// request may be tried again later (the operation is named).
    case timedOut(String)

    public var description: String {
        switch self {
        case .alreadyRegistered(let csi): "csiGuid \(csi) is already registered"
        case .conflict(let what): "concurrent write: \(what)"
        case .corrupt(let what): "stored data cannot be read: \(what)"
        case .unavailable(let reason): "database unavailable: \(reason)"
        case .timedOut(let what): "database statement stopped at its time budget: \(what)"
        }
    }
}
