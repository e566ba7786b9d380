import CommonSupport
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

    /// A refusal that cannot go back to the app (unknown client, redirect URI not registered,
    /// a request already used).
    static func refusal(_ message: String, status: Int = 400) -> ServiceResponse {
        let body = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Authorization refused</title></head>
            <body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
            <h1>Authorization refused</h1><p>\(escape(message))</p></body></html>
            """
        return ServiceResponse(status: status, contentType: "text/html; charset=utf-8", headers: headers, body: Array(body.utf8))
    }

    /// `&`, `<`, `>`, `"` and `'` as character references.
    static func escape(_ text: String) -> String { HTMLText.escape(text) }
}
