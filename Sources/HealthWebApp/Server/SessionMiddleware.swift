import HTTPTypes
import Hummingbird

/// Guards every route: first the `Host` (``HostCheck``: only `127.0.0.1:PORT` and
/// `localhost:PORT`, against DNS rebinding); then `/session?secret=…` trades the one-time secret for the HttpOnly,
/// SameSite=Strict session cookie; any other request without that cookie answers 401; a request
/// that changes state (any method but GET and HEAD) must carry the session's CSRF token in its
/// form (a URL-encoded field, or a field of a multipart upload), within the upload limit, and
/// only ``UploadGate/permits`` such requests hold their bodies at once. A multipart post to one
/// of `streamedPaths` (the Apple Health import, up to gigabytes) is not read here: its route
/// streams the body to a temporary file (``StreamedUpload``), checking the CSRF token before it
/// keeps any byte, and holds no permit (its memory does not grow with the upload). Every
/// answer gets ``SecurityHeaders``.
struct SessionMiddleware<Context: RequestContext>: RouterMiddleware {
    let session: WebSession
    let pages: PageRenderer
    let uploadLimit: Int
    let hostCheck: HostCheck
    let uploadGate: UploadGate
    /// The routes that read their multipart bodies as they arrive (``StreamedUpload``).
    var streamedPaths: Set<String> = []

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await guarded(request, context: context, next: next)
        SecurityHeaders.apply(to: &response.headers)
        return response
    }

    private func guarded(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = hostCheck.refusal(request) {
            return pages.problem(refusal.status, refusal.message)
        }
        if request.uri.path == "/session" {
            guard request.method == .get, let secret = request.uri.queryParameters["secret"],
                  let sessionID = session.exchange(secret: String(secret)) else {
                return pages.problem(.unauthorized, "This link has already been used or is not valid. Run health ui again for a new one.")
            }
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.headers[.setCookie] = "\(WebSession.cookieName)=\(sessionID); Path=/; HttpOnly; SameSite=Strict"
            return response
        }
        guard let sessionID = request.cookies[WebSession.cookieName]?.value, session.isValid(sessionID: sessionID) else {
            return pages.problem(.unauthorized, "Open the link that health ui printed to start a session.")
        }
        guard request.method != .get, request.method != .head else {
            return try await handled(request, context: context, next: next)
        }
        if request.method == .post, streamedPaths.contains(request.uri.path), let contentType = request.headers[.contentType],
           MultipartForm.boundary(contentType: contentType) != nil {
            // Streamed by the route, which checks the CSRF token before it keeps any byte.
            return try await handled(request, context: context, next: next)
        }
        // A body is read whole: at most ``UploadGate/permits`` requests hold one at once.
        let answer = try await uploadGate.withPermit {
            try await changing(request, sessionID: sessionID, context: context, next: next)
        }
        return answer ?? pages.problem(.serviceUnavailable, "Too many uploads are waiting; nothing was changed. Try again in a moment.")
    }

    /// A request that changes state: its body read (within the upload limit), its CSRF token
    /// checked, then the route.
    private func changing(_ request: Request, sessionID: String, context: Context,
                          next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        do {
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: uploadLimit)
            } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                return pages.problem(.contentTooLarge, "The upload is larger than the limit of \(uploadLimit / 1_048_576) MB; nothing was changed.")
            }
            let token: String?
            if let contentType = request.headers[.contentType], let boundary = MultipartForm.boundary(contentType: contentType) {
                // An upload form carries its token as a field of the multipart body.
                do {
                    // Text fields only: the files are read once, by the route.
                    token = try MultipartForm(body, boundary: boundary, keepingFiles: false)[WebSession.csrfField]
                } catch {
                    return pages.problem(.badRequest, "The upload could not be read (\(error)); nothing was changed.")
                }
            } else {
                token = FormFields(String(buffer: body))[WebSession.csrfField]
            }
            guard let token, session.verify(csrfToken: token, sessionID: sessionID) else {
                return pages.problem(.forbidden, "This form has expired or did not come from this page; nothing was changed. Reload the page and try again.")
            }
        }
        return try await handled(request, context: context, next: next)
    }

    /// The route's answer, an `HTTPError` as a page.
    private func handled(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return pages.problem(error.status, error.body ?? error.status.reasonPhrase)
        }
    }
}
