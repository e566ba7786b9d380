import FhirBlocks
import FhirBlocksStore
import Testing

/// The read by a list of ids and the search index's backfill read, written once in `TrustSQL`
/// for both stores: the same text but for how the list is matched (`SQLDialect.among(_:_:)`).
@Suite struct TrustSQLIDListTests {
    static let columns = "SELECT type, id, patient, version_id, last_updated, json FROM fhir_resource"

    @Test("SQLite: at most 512 ids a statement, each list padded to a power of two with its last id; PostgreSQL: one text[] for any count")
    func statementsPerDialect() {
        let patient = Fixtures.csi()
        #expect(TrustSQL.resources(patient: patient, type: "Observation", ids: [], dialect: .sqlite).isEmpty)
        #expect(TrustSQL.resources(patient: patient, type: "Observation", ids: [], dialect: .postgres).isEmpty)
        for count in [1, 2, 3, 5, 511, 512, 513, 1_000, 1_025, 2_000] {
            let ids = (0..<count).map { "id-\($0)" }
            let sqlite = TrustSQL.resources(patient: patient, type: "Observation", ids: ids, dialect: .sqlite)
            #expect(sqlite.count == (count + 511) / 512, "\(count) ids")
            var start = 0
            for statement in sqlite {
                let batch = Array(ids[start..<min(start + 512, count)])
                start += batch.count
                var width = 1
                while width < batch.count { width <<= 1 }
                #expect(width <= 512)
                let padded = batch + repeatElement(batch.last ?? "", count: width - batch.count)
                #expect(statement == SQLStatement(Self.columns + " WHERE patient = ? AND type = ? AND id IN ("
                                                     + Array(repeating: "?", count: width).joined(separator: ", ") + ")",
                                                  [.text(patient.rawValue), .text("Observation")] + padded.map { SQLValue.text($0) }), "\(count) ids")
            }
            #expect(start == count, "\(count) ids")
            let postgres = TrustSQL.resources(patient: patient, type: "Observation", ids: ids, dialect: .postgres)
            #expect(postgres == [SQLStatement(Self.columns + " WHERE patient = ? AND type = ? AND id = ANY(?)",
                                              [.text(patient.rawValue), .text("Observation"), .textList(ids, separator: " ")])])
            #expect(SQLDialect.postgres.placeholders(postgres[0].sql).hasSuffix("patient = $1 AND type = $2 AND id = ANY($3)"))
        }
    }

    @Test("Ids given more than once are listed once, in the order first given, on both databases")
    func repeatedIDsListedOnce() {
        let patient = Fixtures.csi()
        let ids = (0..<600).map { "id-\($0 % 300)" } + ["id-0"]
        let unique = (0..<300).map { "id-\($0)" }
        for dialect in SQLDialect.allCases {
            #expect(TrustSQL.resources(patient: patient, type: "Condition", ids: ids, dialect: dialect)
                == TrustSQL.resources(patient: patient, type: "Condition", ids: unique, dialect: dialect), "\(dialect)")
        }
        #expect(TrustSQL.resources(patient: patient, type: "Condition", ids: ids, dialect: .sqlite).count == 1)
    }

    @Test("The backfill reads every resource with the columns every resource read decodes")
    func backfillRead() {
        #expect(TrustSQL.everyResource == SQLStatement(Self.columns))
        #expect(TrustSQL.everyResource.sql.hasPrefix("SELECT " + TrustSQL.resourceColumns + " "))
    }
}
