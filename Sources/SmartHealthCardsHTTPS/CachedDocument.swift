import Foundation

/// A document kept by ``DocumentCache``: its body, when it was received, and the response header
/// fields that decide its freshness and revalidation.
struct CachedDocument: Codable, Sendable, Equatable {
    /// The response header fields the cache keeps (lower-case names).
    static let keptFields = ["cache-control", "expires", "date", "age", "etag", "last-modified"]

    /// The URL the document was requested at (before any redirect); the cache key.
    var url: String
    /// The body, as received.
    var body: Data
    /// When the response (or the last 304 that confirmed it) was received.
    var receivedAt: Date
    /// The kept header fields, by lower-case name; repeated fields are joined with ", ".
    var fields: [String: String]

    /// Creates an entry from a response's header fields.
    init(url: String, body: Data, receivedAt: Date, headerFields: [(name: String, value: String)]) {
        self.url = url
        self.body = body
        self.receivedAt = receivedAt
        self.fields = CachedDocument.keptFields(headerFields)
    }

    /// The kept fields of `headerFields`, repeated ones joined.
    static func keptFields(_ headerFields: [(name: String, value: String)]) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in headerFields {
            let name = name.lowercased()
            guard keptFields.contains(name) else { continue }
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return fields
    }

    /// The entry confirmed by a 304 at `date`: the 304's kept fields replace the stored ones
    /// (RFC 9111 §4.3.4).
    func revalidated(at date: Date, headerFields: [(name: String, value: String)]) -> CachedDocument {
        var updated = self
        updated.receivedAt = date
        for (name, value) in CachedDocument.keptFields(headerFields) { updated.fields[name] = value }
        return updated
    }

    /// The `Cache-Control` directives.
    var cacheControl: CacheControl {
        CacheControl(fieldValues: fields["cache-control"].map { [$0] } ?? [])
    }

    /// The `ETag` validator, if the server sent one.
    var etag: String? { fields["etag"] }

    /// The `Last-Modified` validator, if the server sent one.
    var lastModified: String? { fields["last-modified"] }

    /// Whether the entry must be revalidated before every use (`no-cache`).
    var requiresRevalidation: Bool { cacheControl.noCache }

    /// Until when the entry is fresh (RFC 9111 §4.2): `max-age`, else `Expires` minus `Date`, else
    /// `defaultLifetime`; less the `Age` the server reported.
    func freshUntil(defaultLifetime: TimeInterval) -> Date {
        let lifetime: TimeInterval
        if let maxAge = cacheControl.maxAge {
            lifetime = TimeInterval(maxAge)
        } else if let expiresField = fields["expires"] {
            // An invalid Expires (such as "0") means already expired.
            if let expires = HTTPDate.parse(expiresField) {
                let base = fields["date"].flatMap(HTTPDate.parse) ?? receivedAt
                lifetime = expires.timeIntervalSince(base)
            } else {
                lifetime = 0
            }
        } else {
            lifetime = defaultLifetime
        }
        let age = fields["age"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { TimeInterval(max(0, $0)) } ?? 0
        return receivedAt.addingTimeInterval(lifetime - age)
    }

    /// Whether the entry may be used at `now` without asking the server.
    func isFresh(at now: Date, defaultLifetime: TimeInterval) -> Bool {
        !requiresRevalidation && now < freshUntil(defaultLifetime: defaultLifetime)
    }
}
