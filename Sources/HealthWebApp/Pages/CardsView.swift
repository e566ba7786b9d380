import Foundation
import OpenHealthKit
import QRCode
import SmartHealthCards

/// The Health cards page (first cut): each stored SMART Health Card with its issuer, the person
/// it names, its items and dates, and its QR code (drawn by the QRCode module from the card's
/// `shc:/` numeric form). Re-verification and adding cards from the page are not done yet.
struct CardsView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText

    func render() async throws -> String {
        let cards = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.verifiableClinicalRecordType())],
                                                      sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)])
            .result(for: store).compactMap { $0 as? HKVerifiableClinicalRecord }
        let rows: [[String: Any]] = cards.map { card in
            var fields: [(String, String)] = [
                ("Issuer", card.issuerIdentifier), ("For", card.subject.fullName),
                ("Items", card.itemNames.joined(separator: ", ")),
                ("Date", String(text.date(card.relevantDate).prefix(10))), ("Issued", String(text.date(card.issuedDate).prefix(10))),
            ]
            if let expiration = card.expirationDate { fields.append(("Expires", String(text.date(expiration).prefix(10)))) }
            fields.append(("Kinds", card.recordTypes.compactMap { $0.split(separator: "#").last.map(String.init) }.joined(separator: ", ")))
            return ["title": card.itemNames.first ?? "Health card", "uuid": card.uuid.uuidString,
                    "fields": fields.map { ["label": $0.0, "text": $0.1] }, "qr": Self.qrSVG(card) ?? "",
                    "hasQR": Self.qrSVG(card) != nil]
        }
        return pages.render("cards", ["cards": rows, "hasCards": !rows.isEmpty])
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
