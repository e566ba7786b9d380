import ExactJSON
import Foundation

/// A per-key revocation list (rule 41), published at `<iss>/.well-known/crl/<kid>.json`:
/// `{"kid":…,"method":"rid","ctr":N,"rids":["rid", "rid.timestamp", …]}`.
///
/// Reading is lenient where the specification's examples are (a numeric-string `ctr`, an empty
/// list: warnings in ``problems``) and strict where its rules are: a malformed entry (a rid that
/// is not base64url or is longer than 24 characters, a bad timestamp) or a rid listed twice is an
/// error in ``problems``, which makes every card checked against the list invalid, as the
/// reference validator does. Writing is strict.
public struct SHCRevocationList: Sendable, Hashable {
    /// One revoked rid, optionally limited to cards issued before a time.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The revocation id.
        public var rid: String
        /// When present, only cards whose `nbf` is before this Unix time (seconds) are revoked.
        public var timestamp: Int64?

        /// Creates an entry.
        public init(rid: String, timestamp: Int64? = nil) {
            self.rid = rid
            self.timestamp = timestamp
        }

        /// `rid` or `rid.timestamp`, as listed in the CRL.
        public var description: String {
            timestamp.map { "\(rid).\($0)" } ?? rid
        }
    }

    /// The key id the list belongs to.
    public var kid: String
    /// The revocation method; `rid` is the only one this library evaluates.
    public var method: String
    /// The list's counter; starts at 1 and increases with every update. Equals the JWK's `crlVersion`.
    public var ctr: Int
    /// The revoked entries, in order.
    public var entries: [Entry] {
        didSet { index = SHCRevocationList.buildIndex(entries) }
    }
    /// Problems found while reading (rule 43), as warnings.
    public private(set) var problems: [SHCFinding]
    /// Whether `ctr` was read from a numeric string (accepted leniently).
    public private(set) var ctrWasString: Bool

    /// For each rid, the latest timestamp it is revoked before, or nil when revoked outright.
    private var index: [String: Int64?]

    /// Creates a list. `ctr` starts at 1 for a list's first publication.
    public init(kid: String, method: String = "rid", ctr: Int = 1, entries: [Entry] = []) {
        self.kid = kid
        self.method = method
        self.ctr = ctr
        self.entries = entries
        self.problems = []
        self.ctrWasString = false
        self.index = SHCRevocationList.buildIndex(entries)
    }

    /// Reads a CRL from its JSON value.
    public init(json: JSONValue) throws(SHCRevocationError) {
        guard case .object = json else { throw .notAnObject }
        guard let kid = json["kid"]?.stringValue else { throw .invalidMember("kid") }
        guard let method = json["method"]?.stringValue else { throw .invalidMember("method") }
        var problems: [SHCFinding] = []
        var ctrWasString = false
        let ctr: Int
        switch json["ctr"] {
        case .number(let text)?:
            guard let value = Int(text) else { throw .invalidMember("ctr") }
            ctr = value
        case .string(let text)?:
            guard let value = Int(text) else { throw .invalidMember("ctr") }
            ctr = value
            ctrWasString = true
            problems.append(SHCFinding(.crlLenient, "CRL for key \(kid) has ctr as the string \"\(text)\"; a number is expected"))
        default:
            throw .invalidMember("ctr")
        }
        guard let rids = json["rids"]?.arrayValue else { throw .invalidMember("rids") }
        var entries: [Entry] = []
        var seen = Set<String>()
        for (position, value) in rids.enumerated() {
            guard let text = value.stringValue, let entry = SHCRevocationList.entry(text) else {
                problems.append(SHCFinding(.crlEntry,
                                           "CRL for key \(kid): entry \(position) is not \"rid\" or \"rid.timestamp\" "
                                               + "with a base64url rid of at most 24 characters"))
                continue
            }
            if !seen.insert(entry.rid).inserted {
                problems.append(SHCFinding(.crlDuplicate, "CRL for key \(kid): entry \(position) repeats an earlier rid"))
            }
            entries.append(entry)
        }
        if rids.isEmpty {
            problems.append(SHCFinding(.crlEmpty, "CRL for key \(kid) lists no rids"))
        }
        self.kid = kid
        self.method = method
        self.ctr = ctr
        self.entries = entries
        self.problems = problems
        self.ctrWasString = ctrWasString
        self.index = SHCRevocationList.buildIndex(entries)
    }

    /// Reads a CRL from JSON text.
    public init(jsonBytes: [UInt8]) throws(SHCRevocationError) {
        let value: JSONValue
        do { value = try SHCLimits.default.parseJSON(jsonBytes) } catch { throw .invalidJSON(error) }
        try self.init(json: value)
    }

    /// Parses `rid` or `rid.timestamp`; nil when malformed.
    static func entry(_ text: String) -> Entry? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let ridPart = parts.first, SHCRevocation.isValidRid(ridPart) else { return nil }
        if parts.count == 2 {
            guard let timestamp = Int64(parts[1]), timestamp >= 0 else { return nil }
            return Entry(rid: String(ridPart), timestamp: timestamp)
        }
        return Entry(rid: String(ridPart))
    }

    private static func buildIndex(_ entries: [Entry]) -> [String: Int64?] {
        var index: [String: Int64?] = [:]
        for entry in entries {
            if let existing = index[entry.rid] {
                // Revoked outright wins; otherwise keep the latest cut-off.
                guard let existingTimestamp = existing, let timestamp = entry.timestamp else {
                    index[entry.rid] = .some(nil)
                    continue
                }
                index[entry.rid] = .some(max(existingTimestamp, timestamp))
            } else {
                index[entry.rid] = .some(entry.timestamp)
            }
        }
        return index
    }

    /// The entry that revokes a card with this `rid` issued at `nbf` (Unix seconds, possibly
    /// fractional), or nil when the card is not revoked.
    ///
    /// Rule 42: revoked when the rid is listed without a timestamp, or when `nbf` is strictly
    /// before the timestamp (`nbf < timestamp`; a card issued at or after the cut-off stands).
    public func revokingEntry(rid: String, nbf: Double) -> Entry? {
        guard let cutoff = index[rid] else { return nil }
        guard let timestamp = cutoff else { return Entry(rid: rid) }
        return nbf < Double(timestamp) ? Entry(rid: rid, timestamp: timestamp) : nil
    }

    /// Adds revocations and increments `ctr` once (one update of the published list).
    ///
    /// - Parameters:
    ///   - rids: the revocation ids to add; each must be base64url of at most 24 characters, not
    ///     listed yet, and given once (``SHCIssueError/ridAlreadyListed(_:)``).
    ///   - issuedBefore: when given, only cards issued before this time are revoked (the entry gets
    ///     a `.timestamp` suffix, whole seconds rounded up so that cards issued before it are covered).
    public mutating func revoke(_ rids: [String], issuedBefore: Date? = nil) throws(SHCIssueError) {
        for rid in rids where !SHCRevocation.isValidRid(rid[...]) {
            throw .invalidRid
        }
        var listed = Set(entries.map(\.rid))
        for rid in rids where !listed.insert(rid).inserted {
            throw .ridAlreadyListed(rid)
        }
        let timestamp = issuedBefore.map { Int64($0.timeIntervalSince1970.rounded(.up)) }
        entries.append(contentsOf: rids.map { Entry(rid: $0, timestamp: timestamp) })
        ctr += 1
    }

    /// The list as JSON (`kid`, `method`, `ctr`, `rids`, in that order, `ctr` a number).
    public var json: JSONValue {
        .object(members: [
            .init("kid", .string(kid)),
            .init("method", .string(method)),
            .init("ctr", .number(integer: ctr)),
            .init("rids", .array(entries.map { .string($0.description) })),
        ])
    }

    /// The list as pretty-printed JSON text, ready to publish.
    public func serialized() -> [UInt8] {
        JSONWriter.serialize(json, style: .pretty) + [0x0A]
    }
}
