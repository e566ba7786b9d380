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
}

extension CardCheck {
    /// What `report` found for the card `uuid`.
    init(uuid: UUID, report: SHCVerificationReport) {
        self.init(uuid: uuid, issuerName: report.issuerName, trusted: report.issuerTrusted, verifies: report.isValid,
                  revoked: report.revoked, reasons: report.errors.map(\.description))
    }
}
