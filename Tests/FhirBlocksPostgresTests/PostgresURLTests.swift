import FhirBlocksPostgres
import Testing

@Suite("PostgresURL")
struct PostgresURLTests {
    @Test func readsEveryPart() throws {
        let url = try PostgresURL("postgres://alice:s3cret@db.example.org:6543/trust?sslmode=require")
        #expect(url.host == "db.example.org")
        #expect(url.port == 6543)
        #expect(url.username == "alice")
        #expect(url.password == "s3cret")
        #expect(url.database == "trust")
        #expect(url.sslMode == .require)
    }

    @Test func defaults() throws {
        let url = try PostgresURL("postgresql://localhost")
        #expect(url.host == "localhost")
        #expect(url.port == 5432)
        #expect(url.username == "postgres")
        #expect(url.password == nil)
        #expect(url.database == nil)
        #expect(url.sslMode == .prefer)
        #expect(try PostgresURL("postgres://bob@127.0.0.1/").database == nil)
        #expect(try PostgresURL("postgres://bob@127.0.0.1/").username == "bob")
    }

    @Test func percentDecodesUserPasswordAndDatabase() throws {
        let url = try PostgresURL("postgres://us%40er:p%3Aa%2Fss%25@host:1/d%20b")
        #expect(url.username == "us@er")
        #expect(url.password == "p:a/ss%")
        #expect(url.database == "d b")
        // A password containing '@' unencoded: the last '@' ends the user info.
        #expect(try PostgresURL("postgres://u:p@ss@host/db").password == "p@ss")
    }

    @Test func ipv6Host() throws {
        let url = try PostgresURL("postgres://u@[::1]:5433/db")
        #expect(url.host == "::1")
        #expect(url.port == 5433)
        #expect(url.text == "postgres://u@[::1]:5433/db")
        #expect(try PostgresURL("postgres://u@[fe80::1]/db").port == 5432)
    }

    @Test func textRoundTrips() throws {
        let url = PostgresURL(host: "h", port: 7, username: "a b", password: "p@ss:/", database: "x/y", sslMode: .disable)
        #expect(try PostgresURL(url.text) == url)
        #expect(url.with(database: "other").database == "other")
        #expect(url.with(database: "other").password == "p@ss:/")
    }

    @Test func descriptionHidesThePassword() throws {
        let url = try PostgresURL("postgres://alice:topsecret@host/db")
        #expect(!url.description.contains("topsecret"))
        #expect(url.description == "postgres://alice:***@host:5432/db")
        #expect(url.text.contains("topsecret"))
    }

    @Test(arguments: [
        ("mysql://u@h/db", PostgresURLError.unsupportedScheme),
        ("postgres://u@h:0/db", .invalid("port")),
        ("postgres://u@h:70000/db", .invalid("port")),
        ("postgres://u@h:abc/db", .invalid("port")),
        ("postgres://u@/db", .invalid("host")),
        ("postgres://u@[::1/db", .invalid("host")),
        ("postgres://:pw@h/db", .invalid("user")),
        ("postgres://u:%zz@h/db", .invalid("password")),
        ("postgres://u@h/a/b", .invalid("database")),
        ("postgres://u@h/db?sslmode=verify-full", .invalid("sslmode")),
        ("postgres://u@h/db?application_name=x", .unsupportedParameter("application_name")),
    ])
    func refusesMalformedURLs(_ text: String, _ expected: PostgresURLError) {
        #expect(throws: expected) { try PostgresURL(text) }
    }

    @Test func errorsNeverQuoteThePassword() {
        do {
            _ = try PostgresURL("postgres://u:hunter2@h:99999/db")
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }
}
