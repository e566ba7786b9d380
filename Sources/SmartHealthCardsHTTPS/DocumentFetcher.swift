import AsyncHTTPClient
import Foundation
import HTTPClientPolicy
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches one document over HTTPS with the policy of an ``HTTPSKeyResolver``: redirects
/// followed by hand and only to https, a size cap, an overall deadline, and conditional requests
/// from a cached entry's validators.
struct DocumentFetcher: Sendable {
    /// What the server answered.
    enum Outcome: Sendable {
        /// 200: the body and the response's header fields.
        case document(body: [UInt8], headers: HTTPHeaders)
        /// 304: the cached copy is still good; the 304's header fields.
        case notModified(headers: HTTPHeaders)
        /// 404 or 410.
        case notFound
    }

    let client: HTTPClient
    let configuration: HTTPSKeyResolver.Configuration

    /// GETs `url`, sending `If-None-Match`/`If-Modified-Since` from `cached` when given, within
    /// the configured request timeout for the whole exchange (redirects and body included).
    func fetch(_ url: String, cached: CachedDocument?) async throws(FetchFailure) -> Outcome {
        let timeout = configuration.requestTimeout
        do {
            return try await withThrowingTaskGroup(of: Outcome?.self) { group in
                group.addTask { try await self.fetchFollowingRedirects(url, cached: cached) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let outcome = first else {
                    throw FetchFailure(reason: "no complete answer within \(DocumentFetcher.describe(timeout))",
                                       allowsStaleCopy: true)
                }
                return outcome
            }
        } catch let failure as FetchFailure {
            throw failure
        } catch {
            throw DocumentFetcher.failure(for: error, timeout: timeout)
        }
    }

    private func fetchFollowingRedirects(_ url: String, cached: CachedDocument?) async throws -> Outcome {
        let deadline = NIODeadline.now() + TimeAmount(configuration.requestTimeout)
        var current = url
        var redirects = 0
        while true {
            try await requirePermittedAddress(current)
            var request = HTTPClientRequest(url: current)
            request.method = .GET
            request.headers.add(name: "Accept", value: "application/json")
            request.headers.add(name: "User-Agent", value: configuration.userAgent)
            if let etag = cached?.etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let lastModified = cached?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
            let response = try await client.execute(request, deadline: deadline)
            if response.history.count > 1 {
                throw FetchFailure(reason: "the HTTPClient followed a redirect by itself; create it with redirectConfiguration: .disallow",
                                   allowsStaleCopy: false)
            }
            switch response.status.code {
            case 200:
                let body: ByteBuffer
                do {
                    body = try await response.body.collect(upTo: max(0, configuration.maximumResponseSize))
                } catch is NIOTooManyBytesError {
                    throw FetchFailure(reason: "the response is larger than \(configuration.maximumResponseSize) bytes",
                                       allowsStaleCopy: false)
                }
                return .document(body: Array(buffer: body), headers: response.headers)
            case 301, 302, 303, 307, 308:
                await drain(response)
                current = try redirectTarget(of: response, from: current, redirectsSoFar: redirects)
                redirects += 1
            case 304:
                await drain(response)
                guard cached != nil else {
                    throw FetchFailure(reason: "HTTP 304 to a request that was not conditional", allowsStaleCopy: false)
                }
                return .notModified(headers: response.headers)
            case 404, 410:
                await drain(response)
                return .notFound
            default:
                await drain(response)
                let code = response.status.code
                throw FetchFailure(reason: "HTTP \(code) \(response.status.reasonPhrase)", allowsStaleCopy: code >= 500)
            }
        }
    }

    /// Refuses, before any connection, a URL whose host resolves to a non-public address
    /// (unless the configuration allows them). The reason is the same whatever the address and
    /// port, so a card cannot be used to probe the verifier's own network.
    private func requirePermittedAddress(_ url: String) async throws {
        guard !configuration.allowsPrivateAddresses else { return }
        guard let host = URL(string: url)?.host, !host.isEmpty else {
            throw FetchFailure(reason: "the URL has no host", allowsStaleCopy: false)
        }
        let addresses: [NetworkAddress]
        do {
            addresses = try await HostAddressLookup.addresses(of: host)
        } catch let failure as HostAddressLookup.Failure {
            throw FetchFailure(reason: failure.reason, allowsStaleCopy: true)
        }
        guard addresses.allSatisfy(\.isPublic) else {
            throw FetchFailure(reason: Self.privateAddressRefusal, allowsStaleCopy: false)
        }
    }

    /// The one reason given for a host on a loopback, private or link-local network.
    static let privateAddressRefusal =
        "the issuer's host is on a loopback, private or link-local network, which is not fetched from "
            + "(map the issuer to a folder, or allow private addresses explicitly)"

    /// The https URL a redirect response points at, or the reason it is not followed (the
    /// package's HTTP client policy decides: at most ``HTTPSKeyResolver/Configuration/maximumRedirects``,
    /// never from https to http; the resolver follows https ones only).
    private func redirectTarget(of response: HTTPClientResponse, from current: String, redirectsSoFar: Int) throws -> String {
        let target: String
        do {
            target = try configuration.policy.redirectTarget(location: response.headers.first(name: "Location"), from: current,
                                                            redirectsSoFar: redirectsSoFar)
        } catch .tooManyRedirects(let limit) {
            throw FetchFailure(reason: "more than \(limit) redirects", allowsStaleCopy: false)
        } catch .redirectRefused(let to, let reason) where !to.isEmpty && !to.lowercased().hasPrefix("https:") {
            throw FetchFailure(reason: "redirect to \(URL(string: to)?.scheme ?? "a relative") URL \(to) refused; "
                                   + "only https redirects are followed (\(reason))",
                               allowsStaleCopy: false)
        } catch {
            throw FetchFailure(reason: "HTTP \(response.status.code) \(error)", allowsStaleCopy: false)
        }
        guard target.lowercased().hasPrefix("https:") else {
            throw FetchFailure(reason: "redirect to http URL \(target) refused; only https redirects are followed", allowsStaleCopy: false)
        }
        return target
    }

    /// Reads and drops a body that is not used (so the connection can be reused), within the size cap.
    private func drain(_ response: HTTPClientResponse) async {
        _ = try? await response.body.collect(upTo: max(0, configuration.maximumResponseSize))
    }

    /// A reason for an error thrown by the client or the network.
    private static func failure(for error: any Error, timeout: Duration) -> FetchFailure {
        if error is CancellationError || Task.isCancelled {
            return FetchFailure(reason: "the request was cancelled", allowsStaleCopy: false)
        }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout:
                return FetchFailure(reason: "no complete answer within \(describe(timeout))", allowsStaleCopy: true)
            case .connectTimeout, .tlsHandshakeTimeout:
                return FetchFailure(reason: "could not connect in time (\(clientError))", allowsStaleCopy: true)
            case .invalidURL, .emptyHost, .emptyScheme:
                return FetchFailure(reason: "the URL cannot be requested (\(clientError))", allowsStaleCopy: false)
            default:
                return FetchFailure(reason: "the request failed (\(clientError))", allowsStaleCopy: true)
            }
        }
        if let sslError = error as? NIOSSLError {
            return FetchFailure(reason: "TLS failed (\(sslError))", allowsStaleCopy: true)
        }
        return FetchFailure(reason: "the request failed (\(error))", allowsStaleCopy: true)
    }

    /// `duration` for a message, such as `10 s` or `0.5 s`.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        return milliseconds == 0 ? "\(seconds) s" : "\(Double(seconds) + Double(milliseconds) / 1000) s"
    }
}
