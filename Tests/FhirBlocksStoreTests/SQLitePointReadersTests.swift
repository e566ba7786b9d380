import GRDB
import Testing
@testable import FhirBlocksSQLite

/// The point readers' cache of statements whose text varies: a text prepared once is reused,
/// and however many texts a client makes, at most `StatementCache.capacity` are kept.
@Suite struct SQLitePointReadersTests {
    @Test func reusesAStatementAndStaysBounded() throws {
        let queue = try DatabaseQueue()
        let cache = SQLitePointReaders.StatementCache()
        try queue.inDatabase { db in
            let first = try cache.statement("SELECT 1", in: db)
            #expect(try cache.statement("SELECT 1", in: db) === first)
            for number in 0..<(3 * SQLitePointReaders.StatementCache.capacity) {
                let statement = try cache.statement("SELECT \(number) + 1", in: db)
                #expect(try Int.fetchOne(statement) == number + 1)
                #expect(cache.count <= SQLitePointReaders.StatementCache.capacity)
            }
            cache.removeAll()
            #expect(cache.count == 0)
        }
    }
}
