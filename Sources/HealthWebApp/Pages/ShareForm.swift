import Foundation
import HealthSharing
import OpenHealthKit

/// The Share page's "Share by link" form read into `ShareOptions`, offering what `health share
/// create` offers: what to share (the summary, record categories, single records, all cards or
/// single cards), a passcode and how many wrong passcodes it allows, an expiry, a label, and how
/// the link opens (fixed, long-term `L`, or direct `U`). A form that cannot be read is a
/// ``SharingWalletProblem`` in words, and nothing is created.
struct ShareCreateForm {
    let options: ShareOptions

    /// The expiry choices of the form, the default first among equals (`30d`).
    static let expiries: [(value: String, label: String, expiry: ShareExpiry)] = [
        ("1d", "in 1 day", .after(.seconds(86_400))),
        ("7d", "in 7 days", .after(.seconds(7 * 86_400))),
        ("30d", "in 30 days", .after(.seconds(30 * 86_400))),
        ("90d", "in 90 days", .after(.seconds(90 * 86_400))),
        ("never", "never", .never),
    ]

    /// The longest passcode the form takes.
    static let maximumPasscodeLength = 100
    /// The wrong passcodes a link allows when the form leaves it empty (the server's default).
    static let defaultAttempts = 10
    /// The most wrong passcodes a link may allow (the server's limit).
    static let maximumAttempts = 1_000
    /// The most single records and cards one link carries.
    static let maximumPicks = 500

    init(_ form: FormFields) throws(SharingWalletProblem) {
        var contents: [ShareContent] = []
        if form["summary"] == "yes" { contents.append(.summary) }
        // One checkbox per category, named `type-IDENTIFIER` (a form's repeated name keeps one value).
        let types = HKObjectType.allClinicalTypes.map(\.identifier).filter { form["type-" + $0] == "yes" }.sorted()
        if !types.isEmpty { contents.append(.records(types: types)) }
        // One checkbox per single record (`record-UUID`) and card (`card-UUID`).
        let records = Self.picked(form, prefix: "record-"), cards = Self.picked(form, prefix: "card-")
        guard records.count + cards.count <= Self.maximumPicks else {
            throw SharingWalletProblem("Choose at most \(Self.maximumPicks) single records and cards; no link was created.")
        }
        contents += records.map { .record($0) }
        if form["cards"] == "yes" { contents.append(.cards) } else { contents += cards.map { .card($0) } }
        guard !contents.isEmpty else {
            throw SharingWalletProblem("Choose what to share: the summary, a category of records, single records or your cards; no link was created.")
        }
        let passcode = form["passcode"].flatMap { $0.isEmpty ? nil : $0 }
        if let passcode, passcode.count > Self.maximumPasscodeLength {
            throw SharingWalletProblem("The passcode is longer than \(Self.maximumPasscodeLength) characters; no link was created.")
        }
        let attemptsText = (form["attempts"] ?? "").trimmingCharacters(in: .whitespaces)
        var attempts: Int?
        if !attemptsText.isEmpty {
            guard let number = Int(attemptsText), (1...Self.maximumAttempts).contains(number) else {
                throw SharingWalletProblem("Wrong passcodes allowed is a whole number from 1 to \(Self.maximumAttempts); no link was created.")
            }
            guard passcode != nil else {
                throw SharingWalletProblem("Wrong passcodes allowed needs a passcode; no link was created.")
            }
            attempts = number
        }
        guard let expiry = Self.expiries.first(where: { $0.value == (form["expiry"] ?? "30d") })?.expiry else {
            throw SharingWalletProblem("The form's expiry is not one of its choices; no link was created.")
        }
        let label = form["label"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let label, label.count > ShareOptions.maximumLabelLength {
            throw SharingWalletProblem("The label is longer than \(ShareOptions.maximumLabelLength) characters; no link was created.")
        }
        let kind = form["kind"] ?? "fixed"
        guard ["fixed", "long-term", "direct"].contains(kind) else {
            throw SharingWalletProblem("The form's kind of link is not one of its choices; no link was created.")
        }
        if kind == "direct" && passcode != nil {
            throw SharingWalletProblem("A direct link cannot have a passcode: choose a fixed or long-term link, or no passcode; no link was created.")
        }
        options = ShareOptions(contents: contents, passcode: passcode, attempts: attempts, expiry: expiry, label: label,
                               longTerm: kind == "long-term", direct: kind == "direct")
    }

    /// The UUIDs of the checked boxes named `prefix` + UUID, in order.
    static func picked(_ form: FormFields, prefix: String) -> [UUID] {
        form.values.compactMap { name, value -> UUID? in
            guard value == "yes", name.hasPrefix(prefix) else { return nil }
            return UUID(uuidString: String(name.dropFirst(prefix.count)))
        }.sorted { $0.uuidString < $1.uuidString }
    }
}
