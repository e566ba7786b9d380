import FhirBlocks
import FhirBlocksStore

/// The kick-off parameters of a Bulk Data export (Bulk Data Access IG v2): `_type` (resource
/// types, comma-separated, the parameter repeatable), `_since` (a FHIR instant: only resources
/// updated at or after it) and `_outputFormat` (`application/fhir+ndjson`,
/// `application/ndjson` or `ndjson`, the only format written). Every other parameter
/// (`_typeFilter`, `_elements`, `patient`, `includeAssociatedData`…) is not supported: refused,
/// or under `Prefer: handling=lenient` ignored and named in ``ignored``.
struct BulkExportParameters: Sendable, Equatable {
    /// The resource types asked for, without repeats, in the order given; empty for all.
    var types: [String] = []
    /// `_since`.
    var since: Timestamp?
    /// The unsupported parameters ignored (lenient handling), by name, in the order given.
    var ignored: [String] = []

    /// The output formats `_outputFormat` may name.
    static let outputFormats: Set<String> = ["application/fhir+ndjson", "application/ndjson", "ndjson"]

    /// The parameters of `query` (a raw query string); `lenient` ignores unsupported ones
    /// instead of refusing them. Throws a reason for a 400.
    init(query: String, lenient: Bool) throws(BulkExportRefusal) {
        let fields: [(name: String, value: String)]
        do {
            fields = try FormBody.parse(Array(query.utf8), mode: .strict, repeatsAllowed: true).value.fields
        } catch {
            throw BulkExportRefusal("the query string cannot be read")
        }
        for (name, value) in fields {
            switch name {
            case "_type":
                for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let type = String(part).trimmingASCIISpaces
                    guard ResourceScope(type) != nil, type != "*" else {
                        if lenient { ignored.append("_type=\(type)"); continue }
                        throw BulkExportRefusal("_type names an unknown resource type")
                    }
                    if !types.contains(type) { types.append(type) }
                }
            case "_since":
                guard since == nil, let range = SearchDateRange(fhir: value) else { throw BulkExportRefusal("_since must be one FHIR instant") }
                since = Timestamp(millisecondsSince1970: range.low)
            case "_outputFormat":
                guard Self.outputFormats.contains(value) else { throw BulkExportRefusal("_outputFormat must be application/fhir+ndjson") }
            default:
                if lenient { ignored.append(name); continue }
                throw BulkExportRefusal("the parameter \(name) is not supported")
            }
        }
    }
}

/// Why a kick-off is refused with 400.
struct BulkExportRefusal: Error, Sendable, Equatable {
    /// The reason, as the OperationOutcome's diagnostics.
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

extension String {
    /// Without leading and trailing ASCII spaces.
    fileprivate var trimmingASCIISpaces: String {
        let utf8 = Array(self.utf8)
        guard let first = utf8.firstIndex(where: { $0 != UInt8(ascii: " ") }), let last = utf8.lastIndex(where: { $0 != UInt8(ascii: " ") }) else {
            return ""
        }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
