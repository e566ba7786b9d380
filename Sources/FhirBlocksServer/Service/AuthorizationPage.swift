import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The HTML pages of `/oauth/authorize`: the waiting page (the app, the scopes it asks for,
/// the user code to approve with `health wallet approve`, refreshing itself) and the refusal
/// page shown when the request cannot be sent back to the app. Every value is HTML-escaped.
enum AuthorizationPage {
    /// Seconds between the page's reloads (and the JSON answer's `interval`).
    static let interval = 5

    /// The headers of every page: no caching, no framing (clickjacking), no scripts.
    static let headers: [(String, String)] = [
        ("Cache-Control", "no-store"), ("X-Frame-Options", "DENY"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    ]

    /// The page that waits for the wallet.
    static func waiting(client: SmartClient, authorization: SmartAuthorization, expiresIn: Int64) -> ServiceResponse {
        let code = UserCode.display(authorization.userCode)
        let app = escape(client.clientName ?? client.clientID.rawValue)
        let scopes = authorization.requestedScope.split(separator: " ").map { "<li><code>\(escape(String($0)))</code></li>" }.joined()
        let body = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="\(interval)">
            <title>Approve \(app)</title></head>
            <body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
            <h1>\(app) asks to read your health data</h1>
            <p>It asks for:</p><ul>\(scopes)</ul>
            <p>Approve with your wallet, which keeps your key (this server keeps no password):</p>
            <p style="font-size: 2em; letter-spacing: 0.1em"><strong>\(code)</strong></p>
            <pre>health wallet approve \(code) --server … --identity …</pre>
            <p>or refuse with <code>health wallet decline \(code)</code>. This page reloads every \(interval) seconds and
            returns you to the app once you have decided. The code expires in \(expiresIn / 60 + 1) minutes.</p>
            </body></html>
            """
        return ServiceResponse(contentType: "text/html; charset=utf-8", headers: headers, body: Array(body.utf8))
    }

    /// A refusal shown rather than sent back to the app: the client or its redirect URI is not
    /// known good, the request is not a valid authorization request (only a stored request's
    /// outcome is redirected, so the server cannot be made to redirect to whatever URI someone
    /// registered), the request was already used, or too many requests. With `json` (the
    /// request asked for `application/json`), `{"error","error_description"}` instead of the
    /// page; `retryAfter` adds `Retry-After`.
    static func refusal(_ message: String, status: Int = 400, error: String = "invalid_request", json: Bool = false,
                        retryAfter: Int? = nil) -> ServiceResponse {
        var pageHeaders = headers
        if let retryAfter { pageHeaders.append(("Retry-After", String(retryAfter))) }
        if json {
            var object = JSONObject()
            object.append("error", error)
            object.append("error_description", message)
            return .json(.object(object), status: status, headers: pageHeaders)
        }
        let body = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Authorization refused</title></head>
            <body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
            <h1>Authorization refused</h1><p>\(escape(message))</p></body></html>
            """
        return ServiceResponse(status: status, contentType: "text/html; charset=utf-8", headers: pageHeaders, body: Array(body.utf8))
    }

    /// `&`, `<`, `>`, `"` and `'` as character references.
    static func escape(_ text: String) -> String { HTMLText.escape(text) }
}
