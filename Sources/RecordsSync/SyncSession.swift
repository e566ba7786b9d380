import Foundation
import HealthRecords
import OpenHealthKit

/// One sync's view of its connection: the tokens in use, refreshed when they expire or the
/// server answers 401, and every state change saved (alone, or with the records it describes).
/// Used by one task at a time.
final class SyncSession {
    var connection: RecordsConnection
    private(set) var refreshed = false
    private let http: SMARTHTTP
    private let store: HKHealthStore

    init(connection: RecordsConnection, http: SMARTHTTP, store: HKHealthStore) {
        self.connection = connection
        self.http = http
        self.store = store
    }

    /// A GET with the access token (refreshed first when it is about to expire, and once more
    /// on a 401).
    func authorizedGet(_ url: String) async throws(RecordsSyncError) -> SMARTHTTP.Response {
        try await authorized { token throws(RecordsSyncError) in try await self.http.get(url, bearer: token) }
    }

    /// A FHIR JSON POST with the access token.
    func authorizedPost(_ url: String, body: [UInt8]) async throws(RecordsSyncError) -> SMARTHTTP.Response {
        try await authorized { token throws(RecordsSyncError) in
            try await self.http.postJSON(url, body: body, contentType: "application/fhir+json", bearer: token)
        }
    }

    private func authorized(_ send: (String) async throws(RecordsSyncError) -> SMARTHTTP.Response) async throws(RecordsSyncError) -> SMARTHTTP.Response {
        if let expiry = connection.tokens.expiresAt, expiry.timeIntervalSinceNow < 30 {
            try await refresh(reason: "the access token expired")
        }
        let response = try await send(connection.tokens.accessToken)
        guard response.status == 401 else { return response }
        try await refresh(reason: "the server no longer accepts the access token")
        let retried = try await send(connection.tokens.accessToken)
        guard retried.status != 401 else { throw .connectionMustBeRenewed("the server refuses the refreshed access token") }
        return retried
    }

    /// Refreshes the tokens (RFC 6749 §6) and saves the connection at once: a rotated refresh
    /// token is the only one that works from now on.
    private func refresh(reason: String) async throws(RecordsSyncError) {
        guard let refreshToken = connection.tokens.refreshToken else { throw .connectionMustBeRenewed("\(reason) and there is no refresh token") }
        let grant: TokenGrant
        do {
            grant = try await RecordsConnector.tokenRequest(http: http, endpoint: connection.endpoints.token, fields: [
                (name: "grant_type", value: "refresh_token"), (name: "refresh_token", value: refreshToken), (name: "client_id", value: connection.clientID),
            ])
        } catch .tokenRefused(let error, _) {
            throw .connectionMustBeRenewed("\(reason) and the refresh was refused (\(error))")
        }
        connection.tokens = TokenGrant(accessToken: grant.accessToken, expiresAt: grant.expiresAt, refreshToken: grant.refreshToken ?? refreshToken,
                                       scope: grant.scope ?? connection.tokens.scope, patient: grant.patient ?? connection.tokens.patient)
        refreshed = true
        try await save(records: [], source: nil)
    }

    /// Saves records, deletes the verifiable records `deleting` names, and saves the
    /// connection's current state, in one transaction (the state alone when there is nothing
    /// to store or delete).
    func save(records: [HKSample], source: HKSource?, deleting: [UUID] = []) async throws(RecordsSyncError) {
        do {
            let stored = try connection.stored()
            if let source, !records.isEmpty || !deleting.isEmpty {
                // Records stored before the import kept their patient and test code get them first
                // (once per store), so that the same records synced again match them, as an import's do.
                try await HealthRecordPatient.completeStoredRecords(in: store)
                try await HealthRecordTestCode.completeStoredRecords(in: store)
                // Named after the Patients the store keeps (the connection's), as an import names them.
                let records = try await HealthRecordPatient.named(records, in: store)
                try await store.saveHealthRecords(records, source: source, deletingVerifiableRecords: deleting, connection: stored)
            } else {
                try await store.saveHealthRecordsConnection(stored)
            }
        } catch {
            throw .connection("the store refused the sync's batch: \(error)")
        }
    }
}
