import Foundation
import OpenHealthKit

/// The Sharing page: which apps may read or write which types (with revoke), and the one-time
/// shares of verifiable records, from the store's own records of them (owner API).
struct SharingView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText

    func render(csrf: String) async throws -> String {
        let decisions = try store.appAuthorizationDecisions()
        let apps: [[String: Any]] = Dictionary(grouping: decisions, by: \.bundleIdentifier).sorted { $0.key < $1.key }.map { bundle, rows in
            let types: [[String: Any]] = rows.sorted { $0.typeIdentifier < $1.typeIdentifier }.map { row in
                ["name": HKObjectType.displayName(forIdentifier: row.typeIdentifier), "type": row.typeIdentifier,
                 "read": Self.words(row.read), "share": Self.words(row.share),
                 "canTurnOff": row.read == .authorized || row.share == .authorized]
            }
            let anyAllowed = rows.contains { $0.read == .authorized || $0.share == .authorized }
            return ["bundle": bundle, "types": types, "anyAllowed": anyAllowed]
        }
        let shares: [[String: Any]] = try await store.verifiableRecordShares().reversed().map { share in
            ["app": share.appName, "bundle": share.bundleIdentifier, "date": text.date(share.date),
             "outcome": share.declined ? "declined" : "\(share.recordUUIDs.count) record(s) shared"]
        }
        return pages.render("sharing", ["apps": apps, "hasApps": !apps.isEmpty, "shares": shares, "hasShares": !shares.isEmpty,
                                        "csrf": csrf])
    }

    static func words(_ answer: HKAppAuthorizationDecision.Answer) -> String {
        switch answer {
        case .authorized: "allowed"
        case .denied: "denied"
        case .notDetermined: "not asked"
        }
    }
}
