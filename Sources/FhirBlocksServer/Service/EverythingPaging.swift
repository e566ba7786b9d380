import FhirBlocks
import FhirBlocksStore

/// The paging parameters of `Patient/{id}/$everything`: `_count` and `_cursor=TYPE/ID` (the
/// last resource of the previous page, in (type, id) byte order). Other parameters are ignored.
struct EverythingPaging: Sendable {
    /// The page size.
    var count = SearchQuery.defaultCount
    /// The (type, id) the page starts after.
    var cursor: (type: String, id: String)?

    /// Reads the query string; a malformed `_count` or `_cursor` is refused.
    init(query: String) throws(SearchError) {
        let fields: [(name: String, value: String)]
        do {
            fields = try FormBody.parse(Array(query.utf8), mode: .strict, repeatsAllowed: true).value.fields
        } catch {
            throw .invalid("the query string cannot be read")
        }
        for (name, value) in fields {
            switch name {
            case "_count":
                guard let number = Int(value), number >= 0 else { throw .invalid("_count must be a whole number") }
                count = min(number, SearchQuery.maximumCount)
            case "_cursor":
                let parts = value.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.allSatisfy(Self.isLetter),
                      (1...64).contains(parts[1].utf8.count), parts[1].utf8.allSatisfy(Self.isIDByte) else {
                    throw .invalid("the paging cursor is not valid")
                }
                cursor = (String(parts[0]), String(parts[1]))
            default:
                continue
            }
        }
    }

    /// The link of a page: `_count`, and the cursor after `record` when given.
    func link(_ base: String, after record: FHIRResourceRecord?) -> String {
        var fields = [(name: "_count", value: String(count))]
        if let record { fields.append((name: "_cursor", value: "\(record.type)/\(record.id)")) }
        return base + "?" + String(decoding: FormBody(fields: fields).encoded(), as: UTF8.self)
    }

    /// Whether `a` comes before `b` in (type, id) byte order.
    static func precedes(_ a: FHIRResourceRecord, _ b: FHIRResourceRecord) -> Bool {
        precedes((a.type, a.id), b)
    }

    /// Whether the position `a` comes before `b` in (type, id) byte order.
    static func precedes(_ a: (type: String, id: String), _ b: FHIRResourceRecord) -> Bool {
        if a.type != b.type { return a.type.utf8.lexicographicallyPrecedes(b.type.utf8) }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
