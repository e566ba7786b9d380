import Foundation
import HealthSharing
import OpenHealthKit

/// The Share page's "Share by link" form read into `ShareOptions`: what to share (the summary,
/// record categories, the cards), a passcode, an expiry and a label. A form that cannot be read
/// is a ``SharingWalletProblem`` in words, and nothing is created.
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

    init(_ form: FormFields) throws(SharingWalletProblem) {
        var contents: [ShareContent] = []
        if form["summary"] == "yes" { contents.append(.summary) }
        // One checkbox per category, named `type-IDENTIFIER` (a form's repeated name keeps one value).
        let types = HKObjectType.allClinicalTypes.map(\.identifier).filter { form["type-" + $0] == "yes" }.sorted()
        if !types.isEmpty { contents.append(.records(types: types)) }
        if form["cards"] == "yes" { contents.append(.cards) }
        guard !contents.isEmpty else {
            throw SharingWalletProblem("Choose what to share: the summary, a category of records or your cards; no link was created.")
        }
        let passcode = form["passcode"].flatMap { $0.isEmpty ? nil : $0 }
        if let passcode, passcode.count > Self.maximumPasscodeLength {
            throw SharingWalletProblem("The passcode is longer than \(Self.maximumPasscodeLength) characters; no link was created.")
        }
        guard let expiry = Self.expiries.first(where: { $0.value == (form["expiry"] ?? "30d") })?.expiry else {
            throw SharingWalletProblem("The form's expiry is not one of its choices; no link was created.")
        }
        let label = form["label"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let label, label.count > ShareOptions.maximumLabelLength {
            throw SharingWalletProblem("The label is longer than \(ShareOptions.maximumLabelLength) characters; no link was created.")
        }
        options = ShareOptions(contents: contents, passcode: passcode, expiry: expiry, label: label)
    }
}
