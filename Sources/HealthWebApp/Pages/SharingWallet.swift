import FHIRCore
import FhirBlocks
import FhirBlocksClient
import Foundation

/// The person's FhirBlocks wallet as the Sharing page uses it (`health ui --identity FILE
/// --server URL`): the permissions granted by and to it, grants and revocations signed through
/// the SDK's `WalletClient` (as `health wallet grant|revoke` do), and "who saw my data" from
/// the server's audit log, re-checked with the SDK's `IncrementalAuditVerifier` (each load reads
/// only the entries appended since the last verified checkpoint).
public struct SharingWallet: Sendable {
    /// The server connection (the caller shuts it down).
    public let client: FhirBlocksClient
    /// The wallet's saved identity.
    public let identity: CsiIdentity
    /// The audit log's last verified checkpoint, kept while the page is served.
    let auditVerifier = IncrementalAuditVerifier()

    /// A wallet over a connection and a saved identity.
    public init(client: FhirBlocksClient, identity: CsiIdentity) {
        self.client = client
        self.identity = identity
    }

    /// What the Sharing page shows of the wallet.
    struct Snapshot: Sendable {
        var grantedByMe: [PermissionRecord]
        var givenToMe: [PermissionRecord]
        var events: [SharingAuditEvent]
        /// The verification of the log (the entries appended since the last verified checkpoint,
        /// everything on the first load), or why it could not be read.
        var verification: Result<AuditVerificationReport, SharingWalletProblem>
    }

    private var wallet: WalletClient { WalletClient(client: client, identity: identity) }

    /// Reads the permissions and the audit log, and verifies what the log appended since the last load.
    func snapshot() async throws(SharingWalletProblem) -> Snapshot {
        do {
            let wallet = self.wallet
            let granted = try await wallet.permissionsGrantedByMe()
            let given = try await wallet.permissionsGivenToMe()
            let token = try await wallet.token()
            let bundle = try await FhirResourceClient(client: client, token: token).search(type: "AuditEvent")
            let events = (bundle.objectValue?["entry"]?.arrayValue ?? []).compactMap { entry in
                entry.objectValue?["resource"]?.objectValue.map(SharingAuditEvent.init(event:))
            }
            let verification: Result<AuditVerificationReport, SharingWalletProblem>
            do {
                verification = .success(try await auditVerifier.verify(AuditClient(client: client, accessToken: token.accessToken)))
            } catch {
                verification = .failure(SharingWalletProblem("The audit log could not be read to check it: \(error.description)"))
            }
            return Snapshot(grantedByMe: granted, givenToMe: given, events: events.sorted { $0.recorded > $1.recorded },
                            verification: verification)
        } catch {
            throw SharingWalletProblem(error)
        }
    }

    /// Grants `scope` during `window` to one grantee; returns the permission ids.
    func grant(to grantee: CsiGuid, scope: PermissionScope, window: TimeWindow) async throws(SharingWalletProblem) -> [String] {
        do {
            return try await wallet.grant(to: [grantee], scope: scope, window: window)
        } catch {
            throw SharingWalletProblem(error)
        }
    }

    /// Revokes every grant to `grantee`; returns the revoked permission ids.
    func revoke(grantee: CsiGuid) async throws(SharingWalletProblem) -> [String] {
        do {
            return try await wallet.revoke(grantee: grantee)
        } catch {
            throw SharingWalletProblem(error)
        }
    }
}

/// Why a wallet request did not happen, in plain words for the page (the server's own reason
/// included; never patient data).
struct SharingWalletProblem: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    init(_ error: FhirBlocksClientError) {
        switch error {
        case .http(_, let status, let code, let reason):
            description = "The wallet's server refused (HTTP \(status)): \(reason ?? code ?? "it gave no reason")."
        case .transport:
            description = "The wallet's server could not be reached."
        case .invalidBaseURL, .responseTooLarge, .malformedResponse, .invalidRequest:
            description = "The wallet's server gave an answer that could not be used: \(error.description)."
        }
    }
}

/// One AuditEvent as the page lists it: who, what, when.
struct SharingAuditEvent: Sendable {
    let recorded: String
    let action: String
    let who: String
    let what: [String]
    let succeeded: Bool

    init(event: JSONObject) {
        let summary = AuditEventSummary(event)
        recorded = summary.recorded ?? ""
        action = summary.subtype ?? Self.actions[summary.action ?? ""] ?? "unknown"
        who = summary.who ?? "unknown"
        what = summary.what
        succeeded = summary.succeeded
    }

    /// FHIR's AuditEvent.action codes.
    static let actions = ["C": "create", "R": "read", "U": "update", "D": "delete", "E": "execute"]
}
