import AsyncHTTPClient
import FhirBlocks
import FhirBlocksStore
import Foundation
import HTTPClientPolicy
import Synchronization

/// The key sets of SMART Backend Services clients: an inline `jwks` as registered, a
/// `jwks_uri` fetched (by the package's `HTTPClientPolicy`: no redirects, at most
/// ``BackendKeySet/maximumSize`` bytes) and kept for ``lifetimeSeconds``. An assertion naming a
/// `kid` the kept set lacks fetches the set again (a client rotated its keys). A URL is fetched at
/// most once per ``refetchSeconds`` whatever the outcome: a fetch that failed is remembered for
/// that long (the assertions meanwhile are refused with its reason), and assertions arriving while
/// a fetch runs wait for that one fetch. So neither unknown `kid`s nor a URL that fails can make
/// the server fetch in a loop for whoever sends assertions naming the client.
final class BackendKeySetResolver: Sendable {
    /// The resolver every server of this process shares (the cache is keyed by URL).
    static let shared = BackendKeySetResolver()

    /// How long a fetched key set is used, in seconds.
    static let lifetimeSeconds: Int64 = 300
    /// How soon a URL may be fetched again (for an unknown `kid`, or after a failure), in seconds.
    static let refetchSeconds: Int64 = 30
    /// The most URLs kept.
    static let maximumEntries = 1024

    private typealias Fetch = Task<Result<BackendKeySet, BackendAssertionError>, Never>

    private struct Entry {
        /// The last key set fetched, and when.
        var keySet: BackendKeySet?
        var fetchedAt: Int64 = 0
        /// When the last fetch started, and why it failed if it did.
        var attemptedAt: Int64
        var failure: BackendAssertionError?
        /// The fetch under way, which later assertions wait for.
        var running: Fetch?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let fetcher: @Sendable (String) async -> Result<BackendKeySet, BackendAssertionError>

    /// Creates a resolver that fetches with `fetcher` (by default over HTTP with the package's
    /// policy; tests count the fetches).
    init(fetcher: (@Sendable (String) async -> Result<BackendKeySet, BackendAssertionError>)? = nil) {
        self.fetcher = fetcher ?? { url in
            do throws(BackendAssertionError) { return .success(try await Self.fetch(url)) } catch { return .failure(error) }
        }
    }

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

    /// What to do for one assertion: use a kept set, wait for a fetch, or refuse.
    private enum Step {
        case use(BackendKeySet)
        case wait(Fetch)
        case refuse(BackendAssertionError)
    }

    /// The key set of `client` that holds `kid`, at `now` (seconds since 1970).
    func keySet(of client: BackendClient, kid: String, now: Int64,
                allowingLoopback: Bool) async throws(BackendAssertionError) -> BackendKeySet {
        if let inline = client.jwks { return try BackendKeySet(json: Array(inline.utf8)) }
        guard let url = client.jwksURI, Self.isAcceptableURL(url, allowingLoopback: allowingLoopback) else {
            throw BackendAssertionError("the client has no usable key set")
        }
        let step = entries.withLock { entries -> Step in
            if let entry = entries[url] {
                if let keySet = entry.keySet, now - entry.fetchedAt < Self.lifetimeSeconds, !keySet.keys(kid: kid).isEmpty {
                    return .use(keySet)
                }
                if let running = entry.running { return .wait(running) }
                if now - entry.attemptedAt < Self.refetchSeconds {
                    if let keySet = entry.keySet, now - entry.fetchedAt < Self.lifetimeSeconds { return .use(keySet) }
                    return .refuse(entry.failure ?? BackendAssertionError("the client's key set was fetched moments ago"))
                }
            }
            if entries[url] == nil, entries.count >= Self.maximumEntries { entries.removeAll() }
            let fetcher = self.fetcher
            let running = Fetch { await fetcher(url) }
            var entry = entries[url] ?? Entry(attemptedAt: now)
            entry.attemptedAt = now
            entry.running = running
            entries[url] = entry
            return .wait(running)
        }
        switch step {
        case .use(let keySet):
            return keySet
        case .refuse(let error):
            throw error
        case .wait(let running):
            let outcome = await running.value
            entries.withLock { entries in
                guard var entry = entries[url], entry.running == running else { return }
                entry.running = nil
                switch outcome {
                case .success(let keySet):
                    entry.keySet = keySet
                    entry.fetchedAt = entry.attemptedAt
                    entry.failure = nil
                case .failure(let error):
                    entry.failure = error
                }
                entries[url] = entry
            }
            return try outcome.get()
        }
    }

    /// Forgets every fetched key set (tests).
    func removeAll() { entries.withLock { $0.removeAll() } }

    private static func fetch(_ url: String) async throws(BackendAssertionError) -> BackendKeySet {
        let policy = HTTPClientPolicy(connectTimeout: .seconds(10), requestTimeout: .seconds(30), maximumResponseSize: BackendKeySet.maximumSize,
                                      maximumRedirects: 0, retries: 1)
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/jwk-set+json, application/json")
        let response: HTTPClientPolicy.Response
        do {
            response = try await policy.execute(request)
        } catch {
            throw BackendAssertionError("the client's jwks_uri could not be fetched: \(error.description)")
        }
        guard response.status == 200 else { throw BackendAssertionError("the client's jwks_uri answered \(response.status)") }
        return try BackendKeySet(json: response.body)
    }
}
