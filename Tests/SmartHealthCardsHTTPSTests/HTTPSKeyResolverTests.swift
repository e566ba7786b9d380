import AsyncHTTPClient
import Foundation
import HTTPTestSupport
import NIOHTTP1
import SmartHealthCards
import TestSupport
@_spi(Testing) @testable import SmartHealthCardsHTTPS
import Testing

/// The failure of `operation`: the reason of an `.unreadable` error, the description of any
/// other error, or nil when it succeeded.
private func failure(_ operation: () async throws -> Void) async -> String? {
    do {
        try await operation()
        return nil
    } catch let error as SHCResolverError {
        if case .unreadable(_, _, let reason) = error { return reason }
        return error.description
    } catch {
        return "not an SHCResolverError: \(error)"
    }
}

@Suite("HTTPSKeyResolver against a loopback HTTPS server", .timeLimit(.minutes(10)))
struct HTTPSKeyResolverTests {
    @Test("the JWKS and the CRL come from the exact well-known paths")
    func wellKnownPaths() async throws {
        try await withLoopbackServer { fixture async throws in
            let (jwks, kid) = TestDocuments.keySet()
            fixture.server.route(fixture.keySetPath, .init(body: jwks))
            fixture.server.route(fixture.revocationListPath(kid), .init(body: TestDocuments.revocationList(kid: kid, ctr: 1)))
            let resolver = fixture.resolver()

            let keySet = try #require(try await resolver.keySet(issuer: fixture.issuer))
            #expect(keySet.keys.map(\.kid) == [kid])
            #expect(fixture.server.requestedPaths == [fixture.keySetPath])

            let list = try #require(try await resolver.revocationList(issuer: fixture.issuer, kid: kid))
            #expect(list.kid == kid && list.ctr == 1)
            #expect(fixture.server.requestedPaths == [fixture.keySetPath, fixture.revocationListPath(kid)])
            #expect(fixture.server.requests(fixture.keySetPath).map(\.uri) == ["/issuer/.well-known/jwks.json"])
            #expect(fixture.server.requests(fixture.keySetPath).first?.method == .GET)
            await resolver.shutdown()
        }
    }

    @Test("a second call within max-age makes no request")
    func maxAgeServesFromCache() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "public, max-age=600")],
                                                           body: TestDocuments.keySet().json))
            let clock = TestClock()
            let resolver = fixture.resolver(clock: clock)
            let first = try await resolver.keySet(issuer: fixture.issuer)
            clock.advance(by: 599)
            let second = try await resolver.keySet(issuer: fixture.issuer)
            #expect(first == second)
            #expect(fixture.server.count(fixture.keySetPath) == 1)

            clock.advance(by: 2)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            #expect(fixture.server.count(fixture.keySetPath) == 2)
            #expect(resolver.staleCopiesUsed.isEmpty)
            await resolver.shutdown()
        }
    }

    @Test("Age is subtracted from max-age")
    func ageHeader() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=600"), ("Age", "590")],
                                                           body: TestDocuments.keySet().json))
            let clock = TestClock()
            let resolver = fixture.resolver(clock: clock)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            clock.advance(by: 5)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            #expect(fixture.server.count(fixture.keySetPath) == 1)
            clock.advance(by: 6)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            #expect(fixture.server.count(fixture.keySetPath) == 2)
            await resolver.shutdown()
        }
    }

    @Test("no-store is fetched every time and never kept")
    func noStore() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "no-store, max-age=600")],
                                                           body: TestDocuments.keySet().json))
            let resolver = fixture.resolver()
            for _ in 0..<3 { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(fixture.server.count(fixture.keySetPath) == 3)
            #expect(fixture.server.requests(fixture.keySetPath).allSatisfy { $0.headers["If-None-Match"].isEmpty })

            await fixture.server.stop()
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(reason != nil)
            #expect(resolver.staleCopiesUsed.isEmpty)
            await resolver.shutdown()
        }
    }

    @Test("no-cache revalidates with If-None-Match and a 304 reuses the body")
    func noCacheRevalidatesWithETag() async throws {
        try await withLoopbackServer { fixture async throws in
            let jwks = TestDocuments.keySet().json
            fixture.server.route(fixture.keySetPath) { head in
                if head.headers["If-None-Match"] == ["\"v1\""] {
                    return .init(status: .notModified, headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")])
                }
                return .init(headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")], body: jwks)
            }
            let resolver = fixture.resolver()
            let first = try await resolver.keySet(issuer: fixture.issuer)
            let second = try await resolver.keySet(issuer: fixture.issuer)
            let third = try await resolver.keySet(issuer: fixture.issuer)
            #expect(first != nil && first == second && second == third)
            let requests = fixture.server.requests(fixture.keySetPath)
            #expect(requests.count == 3)
            #expect(requests.map { $0.headers["If-None-Match"] } == [[], ["\"v1\""], ["\"v1\""]])
            #expect(resolver.staleCopiesUsed.isEmpty)
            await resolver.shutdown()
        }
    }

    @Test("a stale entry revalidates with If-Modified-Since, and the 304's max-age makes it fresh again")
    func lastModifiedRevalidation() async throws {
        try await withLoopbackServer { fixture async throws in
            let jwks = TestDocuments.keySet().json
            let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
            fixture.server.route(fixture.keySetPath) { head in
                if head.headers["If-Modified-Since"] == [lastModified] {
                    return .init(status: .notModified, headers: [("Cache-Control", "max-age=600")])
                }
                return .init(headers: [("Last-Modified", lastModified), ("Cache-Control", "max-age=0")], body: jwks)
            }
            let resolver = fixture.resolver()
            let first = try await resolver.keySet(issuer: fixture.issuer)
            let second = try await resolver.keySet(issuer: fixture.issuer)
            let third = try await resolver.keySet(issuer: fixture.issuer)
            #expect(first != nil && first == second && second == third)
            let requests = fixture.server.requests(fixture.keySetPath)
            #expect(requests.map { $0.headers["If-Modified-Since"] } == [[], [lastModified]])
            await resolver.shutdown()
        }
    }

    @Test("Expires counts when there is no max-age; an invalid Expires is already expired")
    func expires() async throws {
        try await withLoopbackServer { fixture async throws in
            let clock = TestClock()
            let jwks = TestDocuments.keySet().json
            fixture.server.route(fixture.keySetPath,
                                 .init(headers: [("Date", httpDate(clock.now)), ("Expires", httpDate(clock.now.addingTimeInterval(3600)))],
                                       body: jwks))
            fixture.server.route("/other/.well-known/jwks.json", .init(headers: [("Expires", "0")], body: jwks))
            let resolver = fixture.resolver(clock: clock)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            clock.advance(by: 1800)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            #expect(fixture.server.count(fixture.keySetPath) == 1)
            clock.advance(by: 1801)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            #expect(fixture.server.count(fixture.keySetPath) == 2)

            _ = try await resolver.keySet(issuer: fixture.server.url("/other"))
            _ = try await resolver.keySet(issuer: fixture.server.url("/other"))
            #expect(fixture.server.count("/other/.well-known/jwks.json") == 2)
            await resolver.shutdown()
        }
    }

    @Test("without caching headers a document stays fresh for the default freshness")
    func defaultFreshness() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(body: TestDocuments.keySet().json))
            let clock = TestClock()
            let resolver = fixture.resolver(clock: clock)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            clock.advance(by: 3599)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            #expect(fixture.server.count(fixture.keySetPath) == 1)
            clock.advance(by: 2)
            _ = try await resolver.keySet(issuer: fixture.issuer)
            #expect(fixture.server.count(fixture.keySetPath) == 2)
            await resolver.shutdown()
        }
    }

    @Test("with the server stopped, a stale copy is used and reported; a fresh one silently")
    func staleCopyWhenOffline() async throws {
        try await withLoopbackServer { fixture async throws in
            let (jwks, kid) = TestDocuments.keySet()
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=0")], body: jwks))
            fixture.server.route(fixture.revocationListPath(kid),
                                 .init(headers: [("Cache-Control", "max-age=600")], body: TestDocuments.revocationList(kid: kid)))
            let notices = Recorder<HTTPSKeyResolver.StaleCopy>()
            let resolver = fixture.resolver(.init(requestTimeout: .seconds(5), connectTimeout: .seconds(2),
                                                  onStaleCopy: { notices.record($0) }))
            let online = try await resolver.keySet(issuer: fixture.issuer)
            _ = try await resolver.revocationList(issuer: fixture.issuer, kid: kid)
            await fixture.server.stop()

            let offline = try await resolver.keySet(issuer: fixture.issuer)
            #expect(offline == online)
            let stale = resolver.staleCopiesUsed
            #expect(stale.count == 1)
            #expect(stale.first?.url == fixture.server.url(fixture.keySetPath))
            #expect(stale.first?.issuer == fixture.issuer)
            #expect(stale.first?.reason.isEmpty == false)
            #expect(notices.recorded == stale)
            #expect(stale.first?.description.hasPrefix("used a stale copy of \(fixture.server.url(fixture.keySetPath)) received 20") == true)

            // The CRL is still fresh: used without a notice.
            #expect(try await resolver.revocationList(issuer: fixture.issuer, kid: kid)?.kid == kid)
            #expect(resolver.staleCopiesUsed.count == 1)
            await resolver.shutdown()
        }
    }

    @Test("a cancelled lookup stops at once and does not fall back to a stale copy")
    func cancellation() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=0")], body: TestDocuments.keySet().json))
            let resolver = fixture.resolver(.init(requestTimeout: .seconds(20), connectTimeout: .seconds(20)))
            _ = try await resolver.keySet(issuer: fixture.issuer)
            let issuer = fixture.issuer
            // The request is cancelled once the server has it (the server never answers; the
            // 20 s timeout would give another reason).
            let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
            fixture.server.route(fixture.keySetPath) { _ in
                arrival.yield()
                return nil
            }
            let lookup = Task { await failure { _ = try await resolver.keySet(issuer: issuer) } }
            for await _ in arrived { break }
            lookup.cancel()
            #expect(await lookup.value == "the request was cancelled")
            #expect(resolver.staleCopiesUsed.isEmpty)
            await resolver.shutdown()
        }
    }

    @Test("with stale copies disallowed, an unreachable issuer is an error")
    func staleCopiesDisallowed() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=0")], body: TestDocuments.keySet().json))
            let resolver = fixture.resolver(.init(requestTimeout: .seconds(5), connectTimeout: .seconds(2),
                                                  useStaleCopiesWhenOffline: false))
            _ = try await resolver.keySet(issuer: fixture.issuer)
            await fixture.server.stop()
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(reason != nil)
            #expect(resolver.staleCopiesUsed.isEmpty)
            await resolver.shutdown()
        }
    }

    @Test("a 5xx answer falls back to the cached copy; a 4xx does not")
    func serverErrors() async throws {
        try await withLoopbackServer { fixture async throws in
            let jwks = TestDocuments.keySet().json
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=0")], body: jwks))
            let resolver = fixture.resolver()
            let online = try await resolver.keySet(issuer: fixture.issuer)

            fixture.server.route(fixture.keySetPath, .init(status: .serviceUnavailable, body: "down"))
            #expect(try await resolver.keySet(issuer: fixture.issuer) == online)
            #expect(resolver.staleCopiesUsed.first?.reason == "HTTP 503 Service Unavailable")

            fixture.server.route(fixture.keySetPath, .init(status: .forbidden, body: "no"))
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(reason == "HTTP 403 Forbidden")
            await resolver.shutdown()
        }
    }

    @Test("a body over the size cap is an error, with or without Content-Length")
    func oversizedBody() async throws {
        try await withLoopbackServer { fixture async throws in
            let big = Array(repeating: UInt8(ascii: " "), count: 300 * 1024) + Array(TestDocuments.keySet().json.utf8)
            fixture.server.route(fixture.keySetPath, .init(body: big))
            fixture.server.route("/chunked/.well-known/jwks.json", .init(body: big, chunked: true))
            let resolver = fixture.resolver()
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(reason == "the response is larger than 262144 bytes")
            let chunkedReason = await failure { _ = try await resolver.keySet(issuer: fixture.server.url("/chunked")) }
            #expect(chunkedReason == "the response is larger than 262144 bytes")

            // Just under the cap is fine.
            let small = Array(repeating: UInt8(ascii: " "), count: 200 * 1024) + Array(TestDocuments.keySet().json.utf8)
            fixture.server.route(fixture.keySetPath, .init(body: small))
            #expect(try await resolver.keySet(issuer: fixture.issuer)?.keys.count == 1)
            await resolver.shutdown()
        }
    }

    @Test("a redirect to http is an error and is not followed")
    func redirectToHTTP() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(status: .found, headers: [("Location", "http://127.0.0.1:\(fixture.server.port)/plain/jwks.json")]))
            fixture.server.route("/plain/jwks.json", .init(body: TestDocuments.keySet().json))
            fixture.server.route("/ftp/.well-known/jwks.json", .init(status: .movedPermanently, headers: [("Location", "ftp://127.0.0.1/jwks.json")]))
            let resolver = fixture.resolver()
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(reason?.contains("only https redirects are followed") == true)
            #expect(fixture.server.count("/plain/jwks.json") == 0)
            let ftpReason = await failure { _ = try await resolver.keySet(issuer: fixture.server.url("/ftp")) }
            #expect(ftpReason?.contains("only https redirects are followed") == true)
            await resolver.shutdown()
        }
    }

    @Test("redirects to https on the same server are followed, relative ones too, up to three")
    func httpsRedirects() async throws {
        try await withLoopbackServer { fixture async throws in
            let (jwks, kid) = TestDocuments.keySet()
            fixture.server.route(fixture.keySetPath, .init(status: .movedPermanently, headers: [("Location", fixture.server.url("/hop1"))]))
            fixture.server.route("/hop1", .init(status: .temporaryRedirect, headers: [("Location", "/hop2")]))
            fixture.server.route("/hop2", .init(status: .permanentRedirect, headers: [("Location", "final/jwks.json")]))
            fixture.server.route("/final/jwks.json", .init(body: jwks))
            let resolver = fixture.resolver()
            #expect(try await resolver.keySet(issuer: fixture.issuer)?.keys.map(\.kid) == [kid])
            for path in [fixture.keySetPath, "/hop1", "/hop2", "/final/jwks.json"] {
                #expect(fixture.server.count(path) == 1)
            }

            // A fourth redirect is one too many.
            fixture.server.route("/long/.well-known/jwks.json", .init(status: .found, headers: [("Location", "/hop0")]))
            fixture.server.route("/hop0", .init(status: .found, headers: [("Location", fixture.server.url("/hop1"))]))
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.server.url("/long")) }
            #expect(reason == "more than 3 redirects")
            #expect(fixture.server.count("/final/jwks.json") == 1)

            // A redirect loop stops at the limit too.
            fixture.server.route("/loop/.well-known/jwks.json", .init(status: .found, headers: [("Location", "/loop/.well-known/jwks.json")]))
            let loopReason = await failure { _ = try await resolver.keySet(issuer: fixture.server.url("/loop")) }
            #expect(loopReason == "more than 3 redirects")
            #expect(fixture.server.count("/loop/.well-known/jwks.json") == 4)
            await resolver.shutdown()
        }
    }

    @Test("a server that never answers, or stops in the middle of the body, is an error within the configured timeout")
    func timeout() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath) { _ in nil }
            fixture.server.route("/slow/.well-known/jwks.json", .init(body: Array(TestDocuments.keySet().json.utf8), stallsInBody: true))
            // The connect timeout is longer, so the request timeout decides even when the machine
            // is busy with the other tests' handshakes.
            let resolver = fixture.resolver(.init(requestTimeout: .seconds(1), connectTimeout: .seconds(5)))
            for issuer in [fixture.issuer, fixture.server.url("/slow")] {
                // The reason proves the configured timeout fired (not the connect timeout, not a
                // cancellation); how long it took on this machine is not the test's business.
                let reason = await failure { _ = try await resolver.keySet(issuer: issuer) }
                #expect(reason == "no complete answer within 1 s", "\(issuer)")
            }
            // Under load the request may still be in the TLS handshake when the time is up.
            #expect(fixture.server.count(fixture.keySetPath) <= 1)
            await resolver.shutdown()
        }
    }

    @Test("bad issuer URLs are rejected before any request")
    func badIssuers() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(body: TestDocuments.keySet().json))
            let host = "127.0.0.1:\(fixture.server.port)"
            let cases: [(String, String)] = [
                ("http://\(host)/issuer", "the issuer URL uses http; SMART Health Card issuers must use https (rule 6)"),
                ("https://\(host)/issuer/", "the issuer URL must not end with / (rule 6)"),
                ("https://\(host)/", "the issuer URL must not end with / (rule 6)"),
                ("HTTPS://\(host)/issuer", "the issuer URL's scheme must be written https in lower case"),
                ("ftp://\(host)/issuer", "the issuer URL must start with https:// (rule 6)"),
                ("\(host)/issuer", "the issuer URL must start with https:// (rule 6)"),
                ("", "the issuer URL must start with https:// (rule 6)"),
                ("https://", "the issuer URL must not end with / (rule 6)"),
                ("https:///issuer", "the issuer URL has no host"),
                ("https://:443/issuer", "the issuer URL has no host"),
                ("https://user:secret@\(host)/issuer", "the issuer URL must not contain user info"),
                ("https://\(host)/issuer?x=1", "the issuer URL must not have a query"),
                ("https://\(host)/issuer#part", "the issuer URL must not have a fragment"),
                ("https://\(host)/issuer/../other", "the issuer URL must not contain . or .. path segments"),
                ("https://\(host)/issuer/%2E%2e", "the issuer URL must not contain . or .. path segments"),
                ("https://\(host)/./issuer", "the issuer URL must not contain . or .. path segments"),
                ("https://\(host)/issuer%2F..%2Fother", "the issuer URL must not contain an encoded / or \\"),
                ("https://\(host)/issuer%5c..", "the issuer URL must not contain an encoded / or \\"),
                ("https://\(host)/iss uer", "the issuer URL contains spaces, control characters or non-ASCII characters"),
                ("https://\(host)/issüer", "the issuer URL contains spaces, control characters or non-ASCII characters"),
                ("https://\(host)\\issuer", "the issuer URL contains a backslash"),
                ("https://127.0.0.1:99999/issuer", "the issuer URL's port is not a number from 1 to 65535"),
                ("https://127.0.0.1:/issuer", "the issuer URL's port is not a number from 1 to 65535"),
                ("https://exa_mple.org/issuer", "the issuer URL's host is not a valid host name"),
                ("https://example..org/issuer", "the issuer URL's host is not a valid host name"),
                ("https://[::1/issuer", "the issuer URL's IPv6 host is not closed with ]"),
            ]
            let resolver = fixture.resolver()
            for (issuer, expected) in cases {
                do throws(SHCResolverError) {
                    _ = try await resolver.keySet(issuer: issuer)
                    Issue.record("\(issuer) was accepted")
                } catch {
                    #expect(error == .unreadable(issuer: issuer, resource: issuer + "/.well-known/jwks.json", reason: expected),
                            "\(issuer)")
                }
                let crlReason = await failure { _ = try await resolver.revocationList(issuer: issuer, kid: "abc") }
                #expect(crlReason == expected, "\(issuer)")
            }
            // A kid that is not base64url never reaches a URL.
            for kid in ["", "../jwks", "a/b", "a.b", "a%2fb"] {
                let reason = await failure { _ = try await resolver.revocationList(issuer: fixture.issuer, kid: kid) }
                #expect(reason == "the kid is not base64url, so it is not placed in a URL", "\(kid)")
            }
            #expect(fixture.server.requestedPaths.isEmpty)

            // Good forms are accepted (and fetched).
            #expect(try await resolver.keySet(issuer: fixture.issuer)?.keys.count == 1)
            #expect(IssuerURL.problem(in: "https://smarthealth.cards/examples/issuer") == nil)
            #expect(IssuerURL.problem(in: "https://[::1]:8443/issuer") == nil)
            #expect(IssuerURL.problem(in: "https://spec.smarthealth.cards") == nil)
            await resolver.shutdown()
        }
    }

    @Test("a 404 CRL is nil; a 404 JWKS is unreadable; a malformed body is not cached")
    func notFoundAndMalformed() async throws {
        try await withLoopbackServer { fixture async throws in
            let resolver = fixture.resolver()
            #expect(try await resolver.revocationList(issuer: fixture.issuer, kid: "abc") == nil)
            #expect(fixture.server.count(fixture.revocationListPath("abc")) == 1)
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(reason == "HTTP 404: the issuer publishes no JWKS there")

            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=600")], body: "<html>"))
            for _ in 0..<2 {
                do throws(SHCResolverError) {
                    _ = try await resolver.keySet(issuer: fixture.issuer)
                    Issue.record("a malformed JWKS was accepted")
                } catch {
                    guard case .malformedKeySet(let issuer, _) = error else {
                        Issue.record("unexpected \(error)")
                        continue
                    }
                    #expect(issuer == fixture.issuer)
                }
            }
            #expect(fixture.server.count(fixture.keySetPath) == 3)

            fixture.server.route(fixture.revocationListPath("abc"), .init(body: #"{"kid":"abc"}"#))
            do throws(SHCResolverError) {
                _ = try await resolver.revocationList(issuer: fixture.issuer, kid: "abc")
                Issue.record("a malformed CRL was accepted")
            } catch {
                guard case .malformedRevocationList(_, let kid, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(kid == "abc")
            }
            await resolver.shutdown()
        }
    }

    @Test("the disk cache survives a new resolver instance, files named by SHA-256 with mode 0600")
    func diskCache() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shc-https-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withLoopbackServer { fixture async throws in
            let (jwks, kid) = TestDocuments.keySet()
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=600")], body: jwks))
            fixture.server.route(fixture.revocationListPath(kid),
                                 .init(headers: [("Cache-Control", "max-age=0"), ("ETag", "\"c1\"")], body: TestDocuments.revocationList(kid: kid)))
            let configuration = HTTPSKeyResolver.Configuration(requestTimeout: .seconds(5), connectTimeout: .seconds(2),
                                                               cacheFolder: folder)
            let first = fixture.resolver(configuration)
            let online = try await first.keySet(issuer: fixture.issuer)
            _ = try await first.revocationList(issuer: fixture.issuer, kid: kid)
            await first.shutdown()

            let url = fixture.server.url(fixture.keySetPath)
            let file = folder.appendingPathComponent(DocumentCache.fileName(for: url))
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(names.count == 2)
            #expect(names.allSatisfy { $0.count == 64 + 5 && $0.hasSuffix(".json") })
            #expect(DocumentCache.fileName(for: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.json")

            // A new instance answers the fresh JWKS from disk, and revalidates the stale CRL with its ETag.
            let second = fixture.resolver(configuration)
            #expect(try await second.keySet(issuer: fixture.issuer) == online)
            #expect(fixture.server.count(fixture.keySetPath) == 1)
            _ = try await second.revocationList(issuer: fixture.issuer, kid: kid)
            #expect(fixture.server.requests(fixture.revocationListPath(kid)).last?.headers["If-None-Match"] == ["\"c1\""])
            await second.shutdown()

            // Offline, a third instance still verifies: the JWKS is fresh, the CRL stale and reported.
            await fixture.server.stop()
            let third = fixture.resolver(configuration)
            #expect(try await third.keySet(issuer: fixture.issuer) == online)
            #expect(try await third.revocationList(issuer: fixture.issuer, kid: kid)?.kid == kid)
            #expect(third.staleCopiesUsed.map(\.url) == [fixture.server.url(fixture.revocationListPath(kid))])
            await third.shutdown()
        }
    }

    @Test("a resolver with an HTTPClient passed in uses it and leaves it running")
    func passedInClient() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(body: TestDocuments.keySet().json))
            let configuration = HTTPSKeyResolver.Configuration(requestTimeout: .seconds(300), allowsPrivateAddresses: true)
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                    configuration: configuration.httpClientConfiguration(additionalTrustRoots: [fixture.authority.root]))
            let resolver = HTTPSKeyResolver(configuration: configuration, httpClient: client)
            #expect(try await resolver.keySet(issuer: fixture.issuer)?.keys.count == 1)
            await resolver.shutdown()
            // The client is the caller's: still usable after the resolver's shutdown.
            let response = try await client.execute(HTTPClientRequest(url: fixture.server.url(fixture.keySetPath)), timeout: .seconds(300))
            #expect(response.status == .ok)
            _ = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
        }
    }

    @Test("a resolver released without shutdown() shuts its client down by itself")
    func releasedWithoutShutdown() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(body: TestDocuments.keySet().json))
            // A debug build of AsyncHTTPClient traps when a client is released while running: the
            // resolver's deinit must shut its own client down, and that shutdown must succeed.
            let (shutDown, reported) = AsyncStream.makeStream(of: String.self)
            var resolver: HTTPSKeyResolver? = fixture.resolver()
            resolver?.onReleasedClientShutdown { error in
                reported.yield(error.map { "\($0)" } ?? "shut down")
                reported.finish()
            }
            #expect(try await resolver?.keySet(issuer: fixture.issuer)?.keys.count == 1)
            weak let released = resolver
            resolver = nil
            #expect(released == nil, "the resolver is kept alive by a reference cycle")
            var outcomes: [String] = []
            for await outcome in shutDown { outcomes.append(outcome) }
            #expect(outcomes == ["shut down"])
        }
    }

    @Test("a damaged cache file is ignored and replaced")
    func damagedCacheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shc-https-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withLoopbackServer { fixture async throws in
            let (jwks, kid) = TestDocuments.keySet()
            fixture.server.route(fixture.keySetPath, .init(headers: [("Cache-Control", "max-age=600")], body: jwks))
            let configuration = HTTPSKeyResolver.Configuration(requestTimeout: .seconds(5), cacheFolder: folder)
            let url = fixture.server.url(fixture.keySetPath)
            let file = folder.appendingPathComponent(DocumentCache.fileName(for: url))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

            // Not JSON at all, then a well-formed entry whose body is not a JWKS.
            try Data("garbage".utf8).write(to: file)
            let first = fixture.resolver(configuration)
            #expect(try await first.keySet(issuer: fixture.issuer)?.keys.map(\.kid) == [kid])
            await first.shutdown()
            #expect(fixture.server.count(fixture.keySetPath) == 1)

            let damaged = CachedDocument(url: url, body: Data("<html>".utf8), receivedAt: Date(),
                                         headerFields: [(name: "Cache-Control", value: "max-age=600")])
            try JSONEncoder().encode(damaged).write(to: file)
            let second = fixture.resolver(configuration)
            #expect(try await second.keySet(issuer: fixture.issuer)?.keys.map(\.kid) == [kid])
            #expect(fixture.server.count(fixture.keySetPath) == 2)
            await second.shutdown()
        }
    }

    @Test("an issuer on a loopback or private address is refused before any connection, with one reason")
    func privateAddressesRefused() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(body: TestDocuments.keySet().json))
            let port = fixture.server.port
            // The default configuration: the loopback issuer, by address and by name, and a
            // closed port, all get the same reason, and nothing reaches the server.
            let resolver = HTTPSKeyResolver(configuration: .init(requestTimeout: .seconds(5), connectTimeout: .seconds(2)))
            var reasons: [String?] = []
            for issuer in [fixture.issuer, "https://localhost:\(port)/issuer", "https://[::1]:\(port)/issuer", "https://127.0.0.1:1/issuer",
                           "https://10.0.0.1/issuer"] {
                reasons.append(await failure { _ = try await resolver.keySet(issuer: issuer) })
                reasons.append(await failure { _ = try await resolver.revocationList(issuer: issuer, kid: "abc") })
            }
            #expect(reasons.allSatisfy { $0 == DocumentFetcher.privateAddressRefusal }, "\(reasons)")
            #expect(fixture.server.count(fixture.keySetPath) == 0)
            await resolver.shutdown()
            // Allowed explicitly, the same issuer is fetched.
            let allowed = fixture.resolver()
            #expect(try await allowed.keySet(issuer: fixture.issuer)?.keys.count == 1)
            #expect(fixture.server.count(fixture.keySetPath) == 1)
            await allowed.shutdown()
        }
    }

    @Test("the production client does not trust the test authority")
    func systemTrustOnly() async throws {
        try await withLoopbackServer { fixture async throws in
            fixture.server.route(fixture.keySetPath, .init(body: TestDocuments.keySet().json))
            let resolver = HTTPSKeyResolver(configuration: .init(requestTimeout: .seconds(5), connectTimeout: .seconds(2), allowsPrivateAddresses: true))
            let reason = await failure { _ = try await resolver.keySet(issuer: fixture.issuer) }
            #expect(reason?.hasPrefix("TLS failed") == true)
            await resolver.shutdown()
        }
    }
}
