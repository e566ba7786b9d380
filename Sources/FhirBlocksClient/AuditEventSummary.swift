import ExactJSON

/// One FHIR `AuditEvent` (as `WalletClient.auditEvents()` returns them) read for people: when,
/// what was done, by whom, to what, and the outcome. Missing parts are nil (`"?"` in ``what``).
public struct AuditEventSummary: Sendable, Hashable {
    /// `recorded` (an instant).
    public var recorded: String?
    /// `action`: C, R, U, D or E.
    public var action: String?
    /// The first `subtype`'s code (the server's event kind, e.g. `fhir-access`).
    public var subtype: String?
    /// `outcome`: "0" for success, else the failure's code.
    public var outcome: String?
    /// `outcomeDesc`: the outcome in a few words (a shared link request's outcome code,
    /// `wrong-passcode`, ...; how many requests an aggregate entry counts).
    public var outcomeDescription: String?
    /// The requesting agent: its reference, else its identifier's value, else its display.
    public var who: String?
    /// Each entity's reference (identifier value or display when there is none; `"?"` when unreadable).
    public var what: [String]

    /// Reads an AuditEvent resource.
    public init(_ event: JSONObject) {
        recorded = event["recorded"]?.stringValue
        action = event["action"]?.stringValue
        subtype = event["subtype"]?.arrayValue?.first?.objectValue?["code"]?.stringValue
        outcome = event["outcome"]?.stringValue
        outcomeDescription = event["outcomeDesc"]?.stringValue
        let agents = event["agent"]?.arrayValue ?? []
        who = agents.first { $0.objectValue?["requestor"] == .bool(true) }.flatMap { Self.reference($0.objectValue?["who"]) }
        what = (event["entity"]?.arrayValue ?? []).map { Self.reference($0.objectValue?["what"]) ?? "?" }
    }

    /// Whether the event's outcome is success.
    public var succeeded: Bool { outcome == "0" }

    /// Whether the event is a request for one of the wallet's shared links (subtype `shared-link-access`).
    public var isSharedLinkAccess: Bool { subtype == "shared-link-access" }

    /// A shared link request in words, as the person reads it in `health wallet audit` and on the
    /// Sharing page: `Dr. Lee opened the link (shared link AbCdEfGh…)`, `Dr. Lee was refused: wrong
    /// passcode (…)`: the name the recipient gave, the outcome, the link. Nil for other events.
    public var sharedLinkAccessWords: String? {
        guard isSharedLinkAccess else { return nil }
        let outcome = succeeded ? SharedLinkAccess.words(outcome: "opened") : outcomeDescription.map(SharedLinkAccess.words) ?? "was refused"
        let link = what.first { $0.hasPrefix("shl/") }.map { "shared link \($0.dropFirst(4))…" } ?? "a shared link"
        return "\(who ?? "someone") \(outcome) (\(link))"
    }

    private static func reference(_ value: JSONValue?) -> String? {
        guard let object = value?.objectValue else { return nil }
        if let reference = object["reference"]?.stringValue { return reference }
        return object["identifier"]?.objectValue?["value"]?.stringValue ?? object["display"]?.stringValue
    }
}
