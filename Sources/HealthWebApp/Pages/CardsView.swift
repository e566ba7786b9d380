import Foundation
import OpenHealthKit
import QRCode
import SmartHealthCards

/// The Health cards page: the form that adds a card (a file, a QR image or pasted `shc:/` text),
/// and each stored SMART Health Card with whether it verifies now (``CardCheck``: signature,
/// expiry, revocation, with the reasons in plain words when not), its issuer (named from the VCI
/// directory when listed there) and whether that issuer is trusted, the person it names, its
/// items and dates, and its QR code (drawn by the QRCode module from the card's `shc:/` form).
struct CardsView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText

    /// How many cards one page shows.
    static let pageSize = 50

    /// The stored cards, newest first.
    func cards() async throws -> [HKVerifiableClinicalRecord] {
        try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.verifiableClinicalRecordType())],
                                          sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)])
            .result(for: store).compactMap { $0 as? HKVerifiableClinicalRecord }
    }

    /// Page `page` (from 1) of the stored cards, newest first, and whether older cards follow.
    /// The store is asked for no more than the cards up to this page and one more.
    func cards(page: Int) async throws -> (cards: [HKVerifiableClinicalRecord], hasOlder: Bool) {
        let skipped = (page - 1) * Self.pageSize
        let read = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.verifiableClinicalRecordType())],
                                                     sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)],
                                                     limit: skipped + Self.pageSize + 1)
            .result(for: store).compactMap { $0 as? HKVerifiableClinicalRecord }
        let shown = Array(read.dropFirst(skipped).prefix(Self.pageSize))
        return (shown, read.count > skipped + Self.pageSize)
    }

    /// The page's content, for `cards` (page `page`, with older ones after it when `hasOlder`)
    /// and what checking them found at `checkedAt`.
    func render(_ cards: [HKVerifiableClinicalRecord], page: Int = 1, hasOlder: Bool = false, checks: [UUID: CardCheck], checkedAt: Date,
                hasTrustPolicy: Bool, csrf: String) -> String {
        let rows: [[String: Any]] = cards.map { card in
            let check = checks[card.uuid]
            let issuer = check?.issuerName.map { "\($0) (\(card.issuerIdentifier))" } ?? card.issuerIdentifier
            var fields: [(String, String)] = [
                ("Issuer", issuer), ("Issuer trusted", Self.trustText(check?.trusted)), ("For", card.subject.fullName),
                ("Items", card.itemNames.joined(separator: ", ")),
                ("Date", String(text.date(card.relevantDate).prefix(10))), ("Issued", String(text.date(card.issuedDate).prefix(10))),
            ]
            if let expiration = card.expirationDate { fields.append(("Expires", String(text.date(expiration).prefix(10)))) }
            fields.append(("Kinds", card.recordTypes.compactMap { $0.split(separator: "#").last.map(String.init) }.joined(separator: ", ")))
            let reasons = CardReasons.plain(check?.reasons ?? [])
            let qr = Self.qrSVG(card)
            return ["title": card.itemNames.first ?? "Health card", "uuid": card.uuid.uuidString,
                    "verifies": check?.verifies == true ? "yes" : "no", "verdict": Self.verdict(check),
                    "reasons": reasons, "hasReasons": !reasons.isEmpty,
                    "fields": fields.map { ["label": $0.0, "text": $0.1] }, "qr": qr ?? "", "hasQR": qr != nil]
        }
        let trustText = hasTrustPolicy
            ? "Each card's signature, expiry and revocation were checked, and its issuer against the trusted issuers."
            : "Each card's signature, expiry and revocation were checked. No list of trusted issuers was given (health ui --trust-directory FILE), so trust is not decided."
        let newer = page > 1 ? (page == 2 ? "/cards" : "/cards?page=\(page - 1)") : ""
        let older = hasOlder ? "/cards?page=\(page + 1)" : ""
        return pages.render("cards", ["cards": rows, "hasCards": !rows.isEmpty, "csrf": csrf, "checkedAt": text.date(checkedAt),
                                      "trustText": trustText, "hasPager": !newer.isEmpty || !older.isEmpty, "newer": newer, "older": older,
                                      "hasNewer": !newer.isEmpty, "hasOlder": !older.isEmpty])
    }

    static func verdict(_ check: CardCheck?) -> String {
        guard let check else { return "Not checked." }
        if check.revoked { return "Does not verify now: the issuer has revoked it." }
        if !check.verifies { return "Does not verify now." }
        return check.trusted == false ? "Verifies now, but its issuer is not trusted." : "Verifies now."
    }

    static func trustText(_ trusted: Bool?) -> String {
        switch trusted {
        case true?: "Yes"
        case false?: "No: not in the list of trusted issuers"
        case nil: "Not decided (no list of trusted issuers)"
        }
    }

    /// The card's QR code as inline SVG (one symbol; nil for a card too long for one, or not a JWS).
    static func qrSVG(_ card: HKVerifiableClinicalRecord) -> String? {
        let jws = String(decoding: card.jwsRepresentation, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let numeric = try? SHCNumeric.encode(jws), let code = try? QRCode.smartHealthCard(numeric: numeric) else { return nil }
        let svg = code.svg(moduleSize: 3)
        guard let start = svg.range(of: "<svg") else { return nil }
        return svg[start.lowerBound...].replacingOccurrences(of: "<svg ", with: "<svg class=\"qr\" role=\"img\" aria-label=\"QR code of the card\" ")
    }
}
