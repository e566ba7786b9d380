import AsyncHTTPClient
import FhirBlocks
import FhirBlocksStore
import Foundation
import HTTPClientPolicy
import Synchronization

/// The key sets of SMART Backend Services clients: an inline `jwks` as registered, a
/// `jwks_uri` fetched (by the package's `HTTPClientPolicy`: no redirects, at most
/// ``BackendKeySet/maximumSize`` bytes) and kept for ``lifetimeSeconds``. An assertion naming a
/// `kid` the kept set lacks fetches the set again (a client rotated its keys), at most once per
/// ``refetchSeconds`` per URL, so unknown `kid`s cannot make the server fetch in a loop.
final class BackendKeySetResolver: Sendable {
    /// The resolver every server of this process shares (the cache is keyed by URL).
    static let shared = BackendKeySetResolver()

    /// How long a fetched key set is used, in seconds.
    static let lifetimeSeconds: Int64 = 300
    /// How soon a set may be fetched again for an unknown `kid`, in seconds.
    static let refetchSeconds: Int64 = 30
    /// The most URLs kept.
    static let maximumEntries = 1024

    private struct Entry {
        var keySet: BackendKeySet
        var fetchedAt: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Whether `text` is a key set URL the server fetches: `https` with a host (or, when
    /// `allowingLoopback`, `http` to 127.0.0.1, `::1` or `localhost`), no user info, no fragment.
    static func isAcceptableURL(_ text: String, allowingLoopback: Bool) -> Bool {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), let host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil, components.fragment == nil else { return false }
        switch components.scheme?.lowercased() {
        case "https": return true
        case "http": return allowingLoopback && ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
        default: return false
        }
    }

    /// The key set of `client` that holds `kid`, at `now` (seconds since 1970).
    func keySet(of client: BackendClient, kid: String, now: Int64, allowingLoopback: Bool) async throws(BackendAssertionError) -> BackendKeySet {
        if let inline = client.jwks { return try BackendKeySet(json: Array(inline.utf8)) }
        guard let url = client.jwksURI, Self.isAcceptableURL(url, allowingLoopback: allowingLoopback) else {
            throw BackendAssertionError("the client has no usable key set")
        }
        let cached = entries.withLock { $0[url] }
        if let cached, now - cached.fetchedAt < Self.lifetimeSeconds,
           !cached.keySet.keys(kid: kid).isEmpty || now - cached.fetchedAt < Self.refetchSeconds {
            return cached.keySet
        }
        let fetched = try await fetch(url)
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll() }
            entries[url] = Entry(keySet: fetched, fetchedAt: now)
        }
        return fetched
    }

    /// Forgets every fetched key set (tests).
    func removeAll() { entries.withLock { $0.removeAll() } }

    private func fetch(_ url: String) async throws(BackendAssertionError) -> BackendKeySet {
        let policy = HTTPClientPolicy(connectTimeout: .seconds(10), requestTimeout: .seconds(30), maximumResponseSize: BackendKeySet.maximumSize,
                                      maximumRedirects: 0, retries: 1)
        let client = policy.makeClient()
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/jwk-set+json, application/json")
        let outcome: Result<HTTPClientPolicy.Response, HTTPClientPolicyError>
        do {
            outcome = .success(try await policy.execute(request, on: client))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        switch outcome {
        case .success(let response):
            guard response.status == 200 else { throw BackendAssertionError("the client's jwks_uri answered \(response.status)") }
            return try BackendKeySet(json: response.body)
        case .failure(let error):
            throw BackendAssertionError("the client's jwks_uri could not be fetched: \(error.description)")
        }
    }
}
