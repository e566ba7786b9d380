import CommonSupport
import Foundation
import Testing

@Suite("The user's home and XDG base directories, as the environment says")
struct UserDirectoriesTests {
    @Test("HOME is read from the environment; XDG variables count only when absolute")
    func environment() {
        let home = ["HOME": "/tmp/someone"]
        #expect(UserDirectories.home(environment: home).path == "/tmp/someone")
        #expect(UserDirectories.dataHome(environment: home).path == "/tmp/someone/.local/share")
        #expect(UserDirectories.cacheHome(environment: home).path == "/tmp/someone/.cache")
        let relative = home.merging(["XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache"]) { $1 }
        #expect(UserDirectories.dataHome(environment: relative).path == "/tmp/someone/.local/share")
        #expect(UserDirectories.cacheHome(environment: relative).path == "/tmp/someone/.cache")
        let absolute = home.merging(["XDG_DATA_HOME": "/srv/data", "XDG_CACHE_HOME": "/srv/cache"]) { $1 }
        #expect(UserDirectories.dataHome(environment: absolute).path == "/srv/data")
        #expect(UserDirectories.cacheHome(environment: absolute).path == "/srv/cache")
        // Without HOME: the account's home directory.
        #expect(UserDirectories.home(environment: [:]) == FileManager.default.homeDirectoryForCurrentUser)
    }

    @Test("ISO dates in messages, not seconds since 1970")
    func isoDates() {
        #expect(ISODateText.string(secondsSince1970: 1_687_450_764.657) == "2023-06-22T16:19:24Z")
        #expect(ISODateText.string(secondsSince1970: 0) == "1970-01-01T00:00:00Z")
        #expect(ISODateText.string(secondsSince1970: -1) == "1969-12-31T23:59:59Z")
        #expect(ISODateText.string(secondsSince1970: 253_402_300_800) == "10000-01-01T00:00:00Z")
    }
}
