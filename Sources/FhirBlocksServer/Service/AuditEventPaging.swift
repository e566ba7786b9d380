import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The paging parameters of an `AuditEvent` search, newest first: `_count` (1 to
/// `maximumCount`), `_cursor=N` (the entries logged before log index N, the `next` link's
/// cursor) and `agent:not=CSIGUID` (leave out the entries that agent made, such as the wallet's
/// own reads). A search with none of them answers as before (every entry, oldest first).
struct AuditEventPaging: Sendable, Equatable {
    /// The default page size.
    static let defaultCount = 50
    /// The largest page.
    static let maximumCount = 200
    /// The most of the patient's entries one page reads when the reader or `agent:not` leaves
    /// some out (a grantee reading its own actions, or `agent:not` naming another agent): a page
    /// that finds fewer matches than `count` in them answers with what it found and a `next` link
    /// from where it stopped, so a page's cost never grows with the log.
    static let scanLimit = 2_000

    /// The page size.
    var count = defaultCount
    /// The log index the page reads before (exclusive); nil for the newest entries.
    var cursor: Int?
    /// The agent whose entries are left out.
    var excludedAgent: String?

    /// Whether a search asks for pages (any of the paging parameters is present; the decoded
    /// query's names may keep `agent:not`'s colon percent-encoded).
    static func isPaged(_ query: [String: String]) -> Bool {
        query.keys.contains { name in
            name == "_count" || name == "_cursor" || name == "agent:not" || name.lowercased() == "agent%3anot"
        }
    }

    /// Reads the parameters from the query string as received (names and values
    /// percent-decoded); a malformed one is refused.
    init(rawQuery: String) throws(SearchError) {
        let fields: [(name: String, value: String)]
        do {
            fields = try FormBody.parse(Array(rawQuery.utf8), mode: .strict, repeatsAllowed: true).value.fields
        } catch {
            throw .invalid("the query string cannot be read")
        }
        for (name, text) in fields {
            switch name {
            case "_count":
                guard let number = Int(text), number >= 1 else { throw .invalid("_count must be a whole number from 1") }
                count = min(number, Self.maximumCount)
            case "_cursor":
                guard let index = Int(text), index >= 0 else { throw .invalid("the paging cursor is not valid") }
                cursor = index
            case "agent:not":
                guard let agent = CsiGuid(text) else { throw .invalid("agent:not must be a csiGuid") }
                excludedAgent = agent.rawValue
            default:
                continue
            }
        }
    }

    /// The link of a page: its parameters, and the cursor when given.
    func link(_ base: String, cursor: Int?) -> String {
        var fields = [(name: "_count", value: String(count))]
        if let excludedAgent { fields.append((name: "agent:not", value: excludedAgent)) }
        if let cursor { fields.append((name: "_cursor", value: String(cursor))) }
        return base + "?" + String(decoding: FormBody(fields: fields).encoded(), as: UTF8.self)
    }
}
