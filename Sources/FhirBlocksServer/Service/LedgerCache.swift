import FhirBlocks
import FhirBlocksStore
import Synchronization

/// The permission ledger, the registrations and the access tokens as this server last read
/// them from the store, with the store's ledger version they reflect.
///
/// The ledger and registrations are installed whole (``install(version:registrations:ledger:)``)
/// when the store's ``TrustStore/ledgerVersion()`` moved, and kept up to date with this server's
/// own commits (``apply(_:)``). Tokens are kept only while the version they were read under
/// is installed: a token changes only when it is revoked, which raises the version, so
/// installing a new version empties them; expiry and the permissions behind a token are
/// checked on every request all the same. Registrations are kept without their claims (which
/// stay in the store and are read only when released), so they cost memory by their count.
final class LedgerCache: Sendable {
    private struct State {
        var registrations: [CsiGuid: CsiRegistration] = [:]
        var ledger: PermissionLedger
        /// -1: none installed yet.
        var version: Int64 = -1
        var tokens: [String: TrustService.CachedAccessToken] = [:]
        /// Token hashes by the token's text: a pure function remembered, so it outlives the version.
        var tokenHashes: [String: String] = [:]
    }

    /// The most tokens, and token hashes, kept.
    static let maximumCachedTokens = 10_000

    private let state: Mutex<State>

    /// An empty cache (nothing installed).
    init() {
        state = Mutex(State(ledger: PermissionLedger(wallets: [])))
    }

    /// The installed version (-1 before the first install).
    var version: Int64 { state.withLock { $0.version } }

    /// The installed ledger.
    var ledger: PermissionLedger { state.withLock { $0.ledger } }

    /// The installed version and ledger, read together.
    var snapshot: (version: Int64, ledger: PermissionLedger) { state.withLock { ($0.version, $0.ledger) } }

    /// The registration of `csi`, without its claims.
    func registration(_ csi: CsiGuid) -> CsiRegistration? { state.withLock { $0.registrations[csi] } }

    /// Installs what the store held at `version` (read after `version` was), unless a newer
    /// version is installed already; the tokens kept are forgotten.
    func install(version: Int64, registrations: [CsiRegistration], ledger: PermissionLedger) {
        var cached: [CsiGuid: CsiRegistration] = [:]
        for registration in registrations { cached[registration.csiGuid] = registration.withoutClaims }
        state.withLock { state in
            guard version >= state.version else { return }
            state.registrations = cached
            state.ledger = ledger
            state.version = version
            state.tokens = [:]
        }
    }

    /// Applies a change this server committed: its registrations, permissions, revocations and
    /// revoked tokens.
    func apply(_ change: TrustChange) {
        state.withLock { state in
            for registration in change.registrations {
                state.registrations[registration.csiGuid] = registration.withoutClaims
                if registration.isWallet { state.ledger.wallets.insert(registration.csiGuid) }
            }
            for permission in change.permissions { state.ledger.insert(permission) }
            for revocation in change.revocations { _ = state.ledger.revoke(revocation.id, at: revocation.revokedAt) }
            for hash in change.revokedTokenHashes { state.tokens[hash] = nil }
        }
    }

    /// The hash of a token presented before, and the token itself when it was read under
    /// `version` and that version is still installed.
    func token(presented: String, version: Int64) -> (hash: String?, token: TrustService.CachedAccessToken?) {
        state.withLock { state in
            guard let hash = state.tokenHashes[presented] else { return (nil, nil) }
            return (hash, state.version == version ? state.tokens[hash] : nil)
        }
    }

    /// Keeps `token` (presented as `presented`, stored under `hash`) if it was read under
    /// `version` and that version is still installed.
    func keep(_ token: TrustService.CachedAccessToken, presented: String, hash: String, version: Int64) {
        state.withLock { state in
            guard state.version == version else { return }
            if state.tokens.count >= Self.maximumCachedTokens { state.tokens.removeAll(keepingCapacity: true) }
            if state.tokenHashes.count >= Self.maximumCachedTokens { state.tokenHashes.removeAll(keepingCapacity: true) }
            state.tokens[hash] = token
            state.tokenHashes[presented] = hash
        }
    }
}
