import HTTPTypes
import Hummingbird

/// The headers of every answer: a strict Content-Security-Policy (only this server's own
/// stylesheet and icon; no script, no frame, forms post back here only), no caching, no sniffing,
/// no referrer.
enum SecurityHeaders {
    static let contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    static func apply(to headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        for (name, value) in [("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY")] {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
    }
}
