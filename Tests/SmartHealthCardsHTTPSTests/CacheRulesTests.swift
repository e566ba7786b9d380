import Foundation
@testable import SmartHealthCardsHTTPS
import Testing

@Suite("Cache-Control, HTTP dates and freshness")
struct CacheRulesTests {
    @Test("Cache-Control directives are read case-insensitively across fields and quotes")
    func cacheControl() {
        let control = CacheControl(fieldValues: ["Public, MAX-AGE=\"120\"", "no-cache=\"Set-Cookie, X-A\", must-revalidate"])
        #expect(control.maxAge == 120)
        #expect(control.noCache)
        #expect(control.mustRevalidate)
        #expect(!control.noStore)
        #expect(CacheControl(fieldValues: ["no-store"]).noStore)
        #expect(CacheControl(fieldValues: []) == CacheControl(fieldValues: [""]))
        #expect(CacheControl(fieldValues: []).maxAge == nil)
    }

    @Test("an invalid max-age is stale at once; the smallest repeated max-age wins; huge ones saturate")
    func maxAgeEdgeCases() {
        #expect(CacheControl(fieldValues: ["max-age=abc"]).maxAge == 0)
        #expect(CacheControl(fieldValues: ["max-age=-5"]).maxAge == 0)
        #expect(CacheControl(fieldValues: ["max-age"]).maxAge == 0)
        #expect(CacheControl(fieldValues: ["max-age=600, max-age=60"]).maxAge == 60)
        #expect(CacheControl(fieldValues: ["max-age=99999999999999999999999"]).maxAge == Int(Int32.max))
        #expect(CacheControl(fieldValues: ["s-maxage=600"]).maxAge == nil)
    }

    @Test("the three HTTP date forms parse to the same instant; others do not")
    func httpDates() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == Date(timeIntervalSince1970: 1_835_481_599))
        for bad in ["0", "", "-1", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Foo 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "tomorrow"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("freshness: max-age beats Expires, Expires is relative to Date, Age is subtracted")
    func freshness() {
        let received = Date(timeIntervalSince1970: 1_000_000)
        func document(_ fields: [(String, String)]) -> CachedDocument {
            CachedDocument(url: "https://a.example/.well-known/jwks.json", body: Data(), receivedAt: received,
                           headerFields: fields.map { (name: $0.0, value: $0.1) })
        }
        let serverDate = received.addingTimeInterval(-100)
        #expect(document([("Cache-Control", "max-age=60"), ("Expires", httpDate(received.addingTimeInterval(9999)))])
            .freshUntil(defaultLifetime: 3600) == received.addingTimeInterval(60))
        #expect(document([("Date", httpDate(serverDate)), ("Expires", httpDate(serverDate.addingTimeInterval(300)))])
            .freshUntil(defaultLifetime: 3600) == received.addingTimeInterval(300))
        #expect(document([("Expires", "0")]).freshUntil(defaultLifetime: 3600) == received)
        #expect(document([]).freshUntil(defaultLifetime: 3600) == received.addingTimeInterval(3600))
        #expect(document([("cache-control", "max-age=60"), ("age", "50")]).freshUntil(defaultLifetime: 3600)
            == received.addingTimeInterval(10))
        #expect(!document([("Cache-Control", "no-cache, max-age=600")]).isFresh(at: received, defaultLifetime: 3600))
        #expect(document([("Cache-Control", "max-age=600")]).isFresh(at: received.addingTimeInterval(599), defaultLifetime: 3600))

        // A 304 replaces the stored fields it carries and keeps the others.
        let stored = document([("Cache-Control", "max-age=0"), ("ETag", "\"a\""), ("Content-Type", "application/json")])
        #expect(stored.fields["content-type"] == nil)
        let later = received.addingTimeInterval(1000)
        let updated = stored.revalidated(at: later, headerFields: [(name: "Cache-Control", value: "max-age=30")])
        #expect(updated.etag == "\"a\"")
        #expect(updated.freshUntil(defaultLifetime: 3600) == later.addingTimeInterval(30))
    }

    @Test("the memory cache holds at most its limit, dropping the document received longest ago")
    func memoryLimit() async {
        let cache = DocumentCache(folder: nil)
        let start = Date(timeIntervalSince1970: 1_000_000)
        for index in 0...DocumentCache.memoryLimit {
            await cache.store(CachedDocument(url: "https://a.example/\(index)", body: Data(), receivedAt: start.addingTimeInterval(Double(index)),
                                             headerFields: []))
        }
        #expect(await cache.entry(for: "https://a.example/0") == nil)
        #expect(await cache.entry(for: "https://a.example/1") != nil)
        #expect(await cache.entry(for: "https://a.example/\(DocumentCache.memoryLimit)") != nil)
    }
}
