import FhirBlocks
import HTTPTypes
import Hummingbird

/// Gives every answer of the public link endpoints (`/shl/…`: manifests, direct files, file
/// locations) the headers of ``SharedLinkHost/publicHeaders`` — open CORS, `Retry-After`
/// readable by scripts, `Cache-Control: no-store` — whoever made the answer: the handlers, the
/// body limit's 413, the per-address rate limit's 429 (this middleware runs outside it), a
/// route Hummingbird does not know, or an error thrown on the way (answered 500 here). A
/// browser viewer can then read every refusal, and no answer about a link is cached.
struct SharedLinkHeadersMiddleware: RouterMiddleware {
    typealias Context = FhirBlocksRequestContext

    /// Whether `path` is one of the public link endpoints (not the wallet's `/shl-links`).
    static func isPublicLinkPath(_ path: String) -> Bool {
        path.hasPrefix("/shl/")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isPublicLinkPath(request.uri.path) else { return try await next(request, context) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            response = FhirBlocksRouter.bridge(.error(.storageFailure("the request could not be answered")))
        }
        Self.addPublicHeaders(to: &response.headers)
        return response
    }

    /// Adds each public header `fields` lacks (`Cache-Control` replaced: a link's answer is
    /// never stored).
    static func addPublicHeaders(to fields: inout HTTPFields) {
        for (name, value) in SharedLinkHost.publicHeaders {
            guard let fieldName = HTTPField.Name(name) else { continue }
            if fieldName == .cacheControl {
                fields[fieldName] = value
            } else if fields[fieldName] == nil {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
    }
}
