import Crypto
import Foundation
import OpenHealthKit
import SmartHealthCards
import Synchronization

/// The Health cards page's verdicts, kept between loads so that a load verifies only the cards
/// whose verdict may have changed, not every stored card again.
///
/// A card's verdict depends on its JWS (a stored card never changes; the UUID and a hash of the
/// JWS are both compared), on its issuer's key set, on the revocation list of its key when the
/// key has a `crlVersion`, on the verifier's fixed trust policy and limits, and on the clock only
/// at a few instants: `nbf` minus the clock skew (before it the card is "issued in the future"),
/// `exp` (after it the card has expired) and the validity of an `x5c` leaf. A kept verdict is used
/// again while:
/// - the resolver gives an equal key set for the issuer (read once per load, before any card of
///   the load is verified, so a key set that changes during a load is seen as changed next time),
/// - the resolver gives an equal revocation list for the card's key (likewise read once per load),
/// - `now` is on the same side of each of those instants as when the card was verified.
/// Anything else verifies the card again and keeps the new verdict. The cache holds at most
/// ``capacity`` verdicts (the oldest kept goes first); the page shows at most
/// ``CardsView/pageSize`` cards, so one page's verdicts always fit.
final class CardVerdictCache: Sendable {
    /// The most verdicts kept.
    static let capacity = 4096

    /// What a kept verdict was decided on.
    private struct Entry: Sendable {
        var jwsHash: SHA256Digest
        var check: CardCheck
        var issuer: String?
        var kid: String?
        var keySet: Lookup<SHCJWKSet>
        var revocationList: Lookup<SHCRevocationList>?
        var boundaries: [Boundary]
        var sides: [Bool]
    }

    /// An instant at which a verdict can flip.
    struct Boundary: Sendable, Hashable {
        /// The instant.
        var date: Date
        /// True: the finding holds while `now < date`; false: while `now > date`.
        var before: Bool

        func side(_ now: Date) -> Bool { before ? now < date : now > date }
    }

    /// What the resolver answered: a value, nothing, or a failure (which never matches, so a
    /// verdict decided while the resolver failed is decided again).
    enum Lookup<Value: Hashable & Sendable>: Sendable, Equatable {
        case value(Value)
        case none
        case failed

        static func == (lhs: Lookup, rhs: Lookup) -> Bool {
            switch (lhs, rhs) {
            case (.value(let left), .value(let right)): left == right
            case (.none, .none): true
            default: false
            }
        }
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        var order: [UUID] = []
    }

    private let state = Mutex(State())

    /// The number of verdicts kept.
    var count: Int { state.withLock { $0.entries.count } }

    /// Each card's check: kept verdicts whose inputs are unchanged, the others verified now with
    /// `verifier` (all of them when `force`), calling `progress` after each card.
    func checks(for cards: [HKVerifiableClinicalRecord], with verifier: SHCVerifier, force: Bool = false,
                progress: @Sendable (Int) -> Void = { _ in }) async -> [UUID: CardCheck] {
        var inputs = IssuerInputs(resolver: verifier.resolver)
        let kept = state.withLock { state in cards.map { state.entries[$0.uuid] } }
        var checks: [UUID: CardCheck] = [:]
        var fresh: [(UUID, Entry)] = []
        for (index, card) in cards.enumerated() {
            let jws = String(decoding: card.jwsRepresentation, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let jwsHash = SHA256.hash(data: Array(jws.utf8))
            if !force, let entry = kept[index], entry.jwsHash == jwsHash, await isCurrent(entry, now: verifier.now, inputs: &inputs) {
                checks[card.uuid] = entry.check
            } else {
                let entry = await verify(jws, hash: jwsHash, uuid: card.uuid, issuer: card.issuerIdentifier, with: verifier, inputs: &inputs)
                checks[card.uuid] = entry.check
                fresh.append((card.uuid, entry))
            }
            progress(index + 1)
        }
        if !fresh.isEmpty { store(fresh) }
        return checks
    }

    /// Forgets every verdict.
    func removeAll() {
        state.withLock { $0 = State() }
    }

    private func isCurrent(_ entry: Entry, now: Date, inputs: inout IssuerInputs) async -> Bool {
        guard entry.boundaries.map({ $0.side(now) }) == entry.sides else { return false }
        guard let issuer = entry.issuer else { return true }
        guard await inputs.keySet(issuer) == entry.keySet else { return false }
        if let list = entry.revocationList, let kid = entry.kid {
            return await inputs.revocationList(issuer, kid: kid) == list
        }
        return true
    }

    /// Verifies a card whose record names `storedIssuer`; the inputs are read before the card is
    /// verified (see the type's documentation).
    private func verify(_ jws: String, hash: SHA256Digest, uuid: UUID, issuer storedIssuer: String, with verifier: SHCVerifier,
                        inputs: inout IssuerInputs) async -> Entry {
        let keySet = await inputs.keySet(storedIssuer)
        if case .value(let keys) = keySet {
            for key in keys.keys where key.crlVersion != nil {
                if let kid = key.kid { _ = await inputs.revocationList(storedIssuer, kid: kid) }
            }
        }
        var revocationList: Lookup<SHCRevocationList>?
        let report = await verifier.verify(jws)
        // A card whose `iss` is not the issuer its record names: its keys were not the ones read.
        let issuer: String? = report.claims?.iss == storedIssuer ? storedIssuer : nil
        let kid = report.header?.kid
        var boundaries: [Boundary] = []
        if let nbf = report.claims?.nbf, nbf <= 100_000_000_000 {
            boundaries.append(Boundary(date: Date(timeIntervalSince1970: nbf - verifier.limits.clockSkew), before: true))
        }
        if let exp = report.claims?.exp {
            boundaries.append(Boundary(date: Date(timeIntervalSince1970: exp), before: false))
        }
        if let issuer, let kid, case .value(let keys) = keySet,
           let key = keys.keys.first(where: { $0.kid == kid && $0.isValidSigningKey }) ?? keys.keys.first(where: { $0.kid == kid }) {
            if let leaf = key.x5cLeaf {
                boundaries.append(Boundary(date: leaf.notBefore, before: true))
                boundaries.append(Boundary(date: leaf.notAfter, before: false))
            }
            if key.crlVersion != nil {
                revocationList = await inputs.revocationList(issuer, kid: kid)
            }
        }
        return Entry(jwsHash: hash, check: CardCheck(uuid: uuid, report: report), issuer: storedIssuer, kid: kid,
                     keySet: issuer == nil && report.claims?.iss != nil ? .failed : keySet, revocationList: revocationList,
                     boundaries: boundaries, sides: boundaries.map { $0.side(verifier.now) })
    }

    private func store(_ fresh: [(UUID, Entry)]) {
        state.withLock { state in
            for (uuid, entry) in fresh {
                if state.entries.updateValue(entry, forKey: uuid) == nil { state.order.append(uuid) }
            }
            let excess = state.order.count - Self.capacity
            if excess > 0 {
                for uuid in state.order.prefix(excess) { state.entries[uuid] = nil }
                state.order.removeFirst(excess)
            }
        }
    }
}

/// The issuers' key sets and revocation lists as the resolver gives them during one load, each
/// asked for once.
struct IssuerInputs {
    let resolver: any IssuerKeyResolver
    private var keySets: [String: CardVerdictCache.Lookup<SHCJWKSet>] = [:]
    private var revocationLists: [String: CardVerdictCache.Lookup<SHCRevocationList>] = [:]

    init(resolver: any IssuerKeyResolver) {
        self.resolver = resolver
    }

    mutating func keySet(_ issuer: String) async -> CardVerdictCache.Lookup<SHCJWKSet> {
        if let known = keySets[issuer] { return known }
        let lookup: CardVerdictCache.Lookup<SHCJWKSet>
        do {
            lookup = try await resolver.keySet(issuer: issuer).map { .value($0) } ?? .none
        } catch {
            lookup = .failed
        }
        keySets[issuer] = lookup
        return lookup
    }

    mutating func revocationList(_ issuer: String, kid: String) async -> CardVerdictCache.Lookup<SHCRevocationList> {
        let key = issuer + "\u{0}" + kid
        if let known = revocationLists[key] { return known }
        let lookup: CardVerdictCache.Lookup<SHCRevocationList>
        do {
            lookup = try await resolver.revocationList(issuer: issuer, kid: kid).map { .value($0) } ?? .none
        } catch {
            lookup = .failed
        }
        revocationLists[key] = lookup
        return lookup
    }
}
