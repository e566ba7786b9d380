import HTTPTypes
import Hummingbird
import NIOCore

/// The SMART Health Links viewer at `{public-url}/viewer`: one page (`/viewer`), its script
/// (`/viewer/viewer.js`) and stylesheet (`/viewer/viewer.css`). The page reads the link from the
/// address's fragment, which browsers never send, so the server never sees the link's key; the
/// script fetches the manifest and files, decrypts them with WebCrypto and shows them in words.
///
/// The content security policy allows scripts and styles from this server only, and requests to
/// this server, over HTTPS (a link hosted elsewhere, an issuer's key set for verifying cards), or
/// over plain HTTP to this machine's loopback (`127.0.0.1`, `localhost`: a links server the reader
/// runs, as `health serve` does by default). The script itself contacts only the link's manifest
/// address, the file locations its manifest lists and card issuers' key sets, under the same rule.
struct ViewerController {
    /// The policy of the page and its assets.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self' https: http://127.0.0.1:* http://localhost:*; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("viewer") { _, _ in Self.asset(ViewerAssets.page, type: "text/html; charset=utf-8") }
        router.get("viewer/viewer.js") { _, _ in Self.asset(ViewerAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("viewer/viewer.css") { _, _ in Self.asset(ViewerAssets.stylesheet, type: "text/css; charset=utf-8") }
    }

    static func asset(_ text: String, type: String) -> Response {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentType, value: type))
        fields.append(HTTPField(name: .contentSecurityPolicy, value: contentSecurityPolicy))
        fields.append(HTTPField(name: .xContentTypeOptions, value: "nosniff"))
        if let referrer = HTTPField.Name("Referrer-Policy") { fields.append(HTTPField(name: referrer, value: "no-referrer")) }
        fields.append(HTTPField(name: .cacheControl, value: "no-cache"))
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
