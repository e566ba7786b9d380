import ExactJSON
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

    /// How many audit entries the Sharing page lists at once.
    static let auditPageSize = 50

    /// What the Sharing page shows of the wallet.
    struct Snapshot: Sendable {
        var grantedByMe: [PermissionRecord]
        var givenToMe: [PermissionRecord]
        /// One page of others' actions on the wallet's data, newest first.
        var events: [SharingAuditEvent]
        /// The cursor of the next (older) page of `events`, when the server says one follows.
        var olderEvents: Int?
        /// The cursor `events` were read from (nil for the newest page).
        var eventsCursor: Int? = nil
        /// The verification of the log (the entries appended since the last verified checkpoint,
        /// everything on the first load), or why it could not be read.
        var verification: Result<AuditVerificationReport, SharingWalletProblem>
    }

    private var wallet: WalletClient { WalletClient(client: client, identity: identity) }

    /// Reads the permissions and one page of the audit log (others' actions, newest first, from
    /// before `auditCursor` when given), and verifies what the log appended since the last load.
    func snapshot(auditCursor: Int? = nil) async throws(SharingWalletProblem) -> Snapshot {
        do {
            let wallet = self.wallet
            let granted = try await wallet.permissionsGrantedByMe()
            let given = try await wallet.permissionsGivenToMe()
            let token = try await wallet.token()
            let page = try await FhirResourceClient(client: client, token: token)
                .search(type: "AuditEvent", parameters: Self.auditPageParameters(excluding: identity.csiGuid, cursor: auditCursor))
            let (events, older) = Self.auditPage(page)
            let verification: Result<AuditVerificationReport, SharingWalletProblem>
            do {
                verification = .success(try await auditVerifier.verify(AuditClient(client: client, accessToken: token.accessToken)))
            } catch {
                verification = .failure(SharingWalletProblem("The audit log could not be read to check it: \(error.description)"))
            }
            return Snapshot(grantedByMe: granted, givenToMe: given, events: events, olderEvents: older, eventsCursor: auditCursor,
                            verification: verification)
        } catch {
            throw SharingWalletProblem(error)
        }
    }

    /// The AuditEvent search of one page: `_count`, the wallet's own actions left out
    /// (`agent:not`), and the cursor of an older page.
    static func auditPageParameters(excluding wallet: CsiGuid, cursor: Int?) -> [(String, String)] {
        var parameters = [("_count", String(auditPageSize)), ("agent:not", wallet.description)]
        if let cursor { parameters.append(("_cursor", String(cursor))) }
        return parameters
    }

    /// A page's events, newest first (at most `auditPageSize`, whatever the server sent), and
    /// the cursor of its `next` link (nil when there is none or it cannot be read).
    static func auditPage(_ bundle: JSONValue) -> (events: [SharingAuditEvent], older: Int?) {
        let events = (bundle.objectValue?["entry"]?.arrayValue ?? []).compactMap { entry in
            entry.objectValue?["resource"]?.objectValue.map(SharingAuditEvent.init(event:))
        }
        let next = (bundle.objectValue?["link"]?.arrayValue ?? []).first { $0.objectValue?["relation"]?.stringValue == "next" }
        let older = next?.objectValue?["url"]?.stringValue.flatMap(URLComponents.init(string:))?.queryItems?
            .first { $0.name == "_cursor" }?.value.flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        return (Array(events.sorted { $0.recorded > $1.recorded }.prefix(auditPageSize)), older)
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
    /// A request for one of the wallet's shared links in words (`Dr. Lee opened the link (shared
    /// link AbCdEfGh…)`), as `health wallet audit` says it; nil for other events.
    let sentence: String?

    init(event: JSONObject) {
        let summary = AuditEventSummary(event)
        sentence = summary.sharedLinkAccessWords
        recorded = summary.recorded ?? ""
        action = summary.subtype ?? Self.actions[summary.action ?? ""] ?? "unknown"
        who = summary.who ?? "unknown"
        what = summary.what
        succeeded = summary.succeeded
    }

    /// FHIR's AuditEvent.action codes.
    static let actions = ["C": "create", "R": "read", "U": "update", "D": "delete", "E": "execute"]
}
