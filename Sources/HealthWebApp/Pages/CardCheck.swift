import Foundation
import OpenHealthKit
import SmartHealthCards

/// What checking a stored card again found: whether it verifies now (signature, expiry,
/// revocation, the bundle's rules), whether its issuer is trusted, and the issuer's name from the
/// VCI directory when the verifier's trust policy has one. The verifier decides everything.
struct CardCheck: Sendable {
    /// The card's UUID.
    var uuid: UUID
    /// The issuer's name from the VCI directory, when it is listed there.
    var issuerName: String?
    /// Whether the trust policy trusts the issuer; nil when no trust policy was given.
    var trusted: Bool?
    /// Whether the card verifies now.
    var verifies: Bool
    /// Whether the issuer revoked it.
    var revoked: Bool
    /// Why it does not verify, as the verifier wrote it (``CardReasons`` puts them in plain words).
    var reasons: [String]

    /// Checks one card with `verifier` (whose `now` is the instant checked against).
    static func check(_ card: HKVerifiableClinicalRecord, with verifier: SHCVerifier) async -> CardCheck {
        let jws = String(decoding: card.jwsRepresentation, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let report = await verifier.verify(jws)
        return CardCheck(uuid: card.uuid, issuerName: report.issuerName, trusted: report.issuerTrusted, verifies: report.isValid,
                         revoked: report.revoked, reasons: report.errors.map(\.description))
    }

    /// Checks every card, one after the other, calling `progress` after each.
    static func checkAll(_ cards: [HKVerifiableClinicalRecord], with verifier: SHCVerifier,
                         progress: @Sendable (Int) -> Void = { _ in }) async -> [UUID: CardCheck] {
        var checks: [UUID: CardCheck] = [:]
        for (index, card) in cards.enumerated() {
            checks[card.uuid] = await check(card, with: verifier)
            progress(index + 1)
        }
        return checks
    }
}
