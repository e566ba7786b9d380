import Testing
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import TestSupport

/// The storage backends every server test runs on: SQLite always; PostgreSQL when
/// `OPENHEALTHKIT_POSTGRES_URL` names a server (`.ci/run` and `scripts/test.sh` start one).
enum TestBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var postgresURL: String? { ProcessInfo.processInfo.environment["OPENHEALTHKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } }

    /// The backends available here.
    static var available: [TestBackend] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// A fresh, migrated, empty store.
    func makeStore() async throws -> any TrustStore {
        switch self {
        case .sqlite:
            let folder = ScratchFolders.url("fhirblocks-tests")
            let store = try SQLiteTrustStore(path: folder.appendingPathComponent("trust.sqlite").path)
            try await store.migrate()
            return store
        case .postgres:
            guard let url = Self.postgresURL else { throw TestSkip("OPENHEALTHKIT_POSTGRES_URL is not set") }
            return try await PostgresTestDatabase.freshStore(adminURL: url)
        }
    }
}

/// Thrown when a backend is not available.
struct TestSkip: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

