import Foundation
import HTTPTypes
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Web session, CSRF and headers")
struct SessionMiddlewareTests {
    @Test("every page answers 401 without the session cookie, and with a forged one")
    func noCookie() async throws {
        let fixture = try await WebTestFixture.make(days: 2)
        try await fixture.withClient { client in
            for path in ["/", "/?period=year", "/browse", "/browse/HKQuantityTypeIdentifierStepCount", "/assets/app.css", "/nowhere"] {
                let answer = try await client.send(.get, path)
                #expect(answer.status == .unauthorized, "\(path)")
                #expect(answer.headers[.contentSecurityPolicy] == "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                        + "frame-ancestors 'none'; base-uri 'none'")
                let forged = try await client.send(.get, path, cookie: "\(WebSession.cookieName)=\(String(repeating: "ab", count: 32))")
                #expect(forged.status == .unauthorized, "\(path)")
            }
            let post = try await client.send(.post, "/browse/HKQuantityTypeIdentifierStepCount/delete", form: "uuid=x")
            #expect(post.status == .unauthorized)
        }
    }

    @Test("the start secret opens one HttpOnly, SameSite=Strict session, once")
    func secretOnce() async throws {
        let fixture = try await WebTestFixture.make(days: 2)
        try await fixture.withClient { client in
            let wrong = try await client.send(.get, "/session?secret=\(String(repeating: "0", count: 64))")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.setCookie] == nil)
            let answer = try await client.send(.get, "/session?secret=\(fixture.webApp.session.startSecret)")
            #expect(answer.status == .seeOther)
            #expect(answer.headers[.location] == "/")
            let cookie = try #require(answer.headers[.setCookie])
            #expect(cookie.hasPrefix("\(WebSession.cookieName)="))
            #expect(cookie.contains("; HttpOnly"))
            #expect(cookie.contains("; SameSite=Strict"))
            #expect(!cookie.contains(fixture.webApp.session.startSecret))
            let again = try await client.send(.get, "/session?secret=\(fixture.webApp.session.startSecret)")
            #expect(again.status == .unauthorized)
            #expect(again.headers[.setCookie] == nil)
            let pair = String(cookie.split(separator: ";")[0])
            let page = try await client.send(.get, "/", cookie: pair)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.body.contains("<h1>Today</h1>"))
        }
        #expect(fixture.webApp.startURL(port: 8787) == "http://127.0.0.1:8787/session?secret=\(fixture.webApp.session.startSecret)")
    }

    @Test("a form without its CSRF token, or with another session's, is refused and changes nothing")
    func csrf() async throws {
        let fixture = try await WebTestFixture.make(days: 2)
        let before = try await fixture.store.count(of: HKQuantityType(.stepCount))
        let newest = try await fixture.store.newest(of: HKQuantityType(.stepCount))
        let victim = try #require(newest)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let path = "/browse/HKQuantityTypeIdentifierStepCount/delete"
            let missing = try await client.send(.post, path, cookie: cookie, form: "uuid=\(victim.uuid.uuidString)")
            #expect(missing.status == .forbidden)
            let forged = try await client.send(.post, path, cookie: cookie, form: "uuid=\(victim.uuid.uuidString)&csrf=\(String(repeating: "a", count: 64))")
            #expect(forged.status == .forbidden)
            let other = fixture.webApp.session.csrfToken(for: "another-session")
            let foreign = try await client.send(.post, path, cookie: cookie, form: "uuid=\(victim.uuid.uuidString)&csrf=\(other)")
            #expect(foreign.status == .forbidden)
        }
        #expect(try await fixture.store.count(of: HKQuantityType(.stepCount)) == before)
    }

    @Test("a body over the upload limit is refused with 413 and changes nothing")
    func uploadLimit() async throws {
        let fixture = try await WebTestFixture.make(days: 2, uploadLimit: 4_096)
        let before = try await fixture.store.count(of: HKQuantityType(.stepCount))
        let newest = try await fixture.store.newest(of: HKQuantityType(.stepCount))
        let victim = try #require(newest)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let padding = String(repeating: "x", count: 8_192)
            let answer = try await client.send(.post, "/browse/HKQuantityTypeIdentifierStepCount/delete", cookie: cookie,
                                               form: "uuid=\(victim.uuid.uuidString)&csrf=\(client.csrf(cookie))&pad=\(padding)")
            #expect(answer.status == .contentTooLarge)
            #expect(answer.body.contains("nothing was changed"))
        }
        #expect(try await fixture.store.count(of: HKQuantityType(.stepCount)) == before)
    }
}
