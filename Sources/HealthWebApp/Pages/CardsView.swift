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

    /// Where a page of cards starts, newest first: after the cards dated later than `date`, and
    /// after the first `skipped` cards dated exactly `date` (in the store's order). The Older link
    /// carries it (`before`, `skip`); a page is read from it whatever its number.
    struct PageCursor: Sendable, Equatable {
        /// The start date (seconds since 2001-01-01, as the store keeps it) the page reads at or before.
        var date: Double
        /// How many cards dated exactly `date` earlier pages showed.
        var skipped: Int

        /// The most cards of one date a cursor skips (a bound on a malformed link's cost).
        static let maximumSkipped = 10_000

        /// The cursor of the Older link's query (`before`, `skip`), or nil when absent or malformed.
        init?(before: String?, skip: String?) {
            guard let before, let date = Double(before), date.isFinite else { return nil }
            let skipped = skip.map { Int($0) } ?? 0
            guard let skipped, (0...Self.maximumSkipped).contains(skipped) else { return nil }
            self.init(date: date, skipped: skipped)
        }

        init(date: Double, skipped: Int) {
            self.date = date
            self.skipped = skipped
        }

        /// The cursor's query string (`before=…&skip=…`; the date's shortest exact form).
        var query: String { "before=\(date)&skip=\(skipped)" }
    }

    /// One page of the stored cards, newest first, from `cursor` (the newest when nil); whether
    /// older cards follow, and the cursor of the page after it. The store is asked for the cards
    /// dated at or before the cursor's date, in its order, at most the cursor's skipped cards and
    /// one page and one more: the page's cost does not grow with its number or with the cards
    /// stored, only with the cards sharing the cursor's date.
    func cards(from cursor: PageCursor?) async throws -> (cards: [HKVerifiableClinicalRecord], hasOlder: Bool, older: PageCursor?) {
        var predicates: [HKSamplePredicate<HKSample>] = [.sample(type: HKObjectType.verifiableClinicalRecordType())]
        if let cursor {
            // The store's `startDate < end`: the cards at or before the cursor's date.
            let end = Date(timeIntervalSinceReferenceDate: cursor.date.nextUp)
            predicates = [.sample(type: HKObjectType.verifiableClinicalRecordType(),
                                  predicate: HKQuery.predicateForSamples(withStart: nil, end: end))]
        }
        let skipped = cursor?.skipped ?? 0
        let read = try await HKSampleQueryDescriptor(predicates: predicates,
                                                     sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)],
                                                     limit: skipped + Self.pageSize + 1)
            .result(for: store).compactMap { $0 as? HKVerifiableClinicalRecord }
        let shown = Array(read.dropFirst(skipped).prefix(Self.pageSize))
        let hasOlder = read.count > skipped + Self.pageSize
        guard hasOlder, let last = shown.last else { return (shown, hasOlder, nil) }
        let lastDate = last.startDate.timeIntervalSinceReferenceDate
        // The cards of the last shown date on this page, and on earlier pages when the whole page has that date.
        let sameDate = shown.reversed().prefix { $0.startDate.timeIntervalSinceReferenceDate == lastDate }.count
        let carried = cursor.map { $0.date == lastDate && sameDate == shown.count ? $0.skipped : 0 } ?? 0
        return (shown, hasOlder, PageCursor(date: lastDate, skipped: carried + sameDate))
    }

    /// The page's content, for `cards` (page `page`, with older ones after it when `hasOlder`)
    /// and what checking them found at `checkedAt`.
    func render(_ cards: [HKVerifiableClinicalRecord], page: Int = 1, older: PageCursor? = nil, checks: [UUID: CardCheck], checkedAt: Date,
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
            : "Each card's signature, expiry and revocation were checked. "
                + "No list of trusted issuers was given (health ui --trust-directory FILE), so trust is not decided."
        // Older: the next page from its cursor; newer: back to the newest cards (the browser's
        // Back button returns one page).
        let newer = page > 1 ? "/cards" : ""
        let older = older.map { "/cards?page=\(page + 1)&\($0.query)" } ?? ""
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
