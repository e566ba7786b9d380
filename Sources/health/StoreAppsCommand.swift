import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store apps`: the apps' per-type decisions, as the Health app's settings show them;
/// changing, revoking and resetting them.
struct StoreAppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List, change, revoke or reset the apps' read and share decisions per type.",
        discussion: """
            Without options, lists every app's decisions. --app BUNDLE --type T with --read and/or --share \\
            (allow, deny or unset) changes one; --revoke BUNDLE denies an app everything it has a decision \\
            about; --reset BUNDLE forgets its decisions so it may ask again. The app's next query obeys.
            """)

    enum Choice: String, ExpressibleByArgument, CaseIterable {
        case allow, deny, unset

        var answer: HKAppAuthorizationDecision.Answer {
            switch self {
            case .allow: .authorized
            case .deny: .denied
            case .unset: .notDetermined
            }
        }
    }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The app (bundle identifier) whose decision --type, --read and --share change.")
    var app: String?

    @Option(help: "The type to change for --app.")
    var type: String?

    @Option(help: "Whether --app may read --type: allow, deny or unset.")
    var read: Choice?

    @Option(help: "Whether --app may save --type: allow, deny or unset.")
    var share: Choice?

    @Option(help: "Deny this app every type it has a decision about.")
    var revoke: String?

    @Option(help: "Forget this app's decisions, so it may ask again.")
    var reset: String?

    @Flag(help: "Print JSON.")
    var json = false

    mutating func validate() throws {
        let changing = app != nil || type != nil || read != nil || share != nil
        if changing {
            guard app != nil, type != nil, read != nil || share != nil else {
                throw ValidationError("changing a decision needs --app, --type and --read or --share")
            }
        }
        guard [changing, revoke != nil, reset != nil].filter({ $0 }).count <= 1 else {
            throw ValidationError("use one of: --app/--type, --revoke, --reset")
        }
    }

    mutating func run() async throws {
        let store = try storeOptions.openStore()
        if let app, let type {
            let objectType: HKObjectType = try HKObjectType.characteristicType(named: type) ?? parseSampleType(type) as HKObjectType
            try store.setAppAuthorization(bundleIdentifier: app, type: objectType, share: share?.answer, read: read?.answer)
        } else if let revoke {
            try requireKnown(revoke, store)
            try store.revokeAppAuthorization(bundleIdentifier: revoke)
        } else if let reset {
            try requireKnown(reset, store)
            try store.resetAppAuthorization(bundleIdentifier: reset)
        }
        let decisions = try store.appAuthorizationDecisions()
        if json {
            let document = decisions.map { decision -> [String: Any] in
                ["app": decision.bundleIdentifier, "type": decision.typeIdentifier, "read": decision.read.rawValue,
                 "share": decision.share.rawValue, "decidedAt": isoDate(decision.decidedAt)]
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]),
                         as: UTF8.self))
            return
        }
        if decisions.isEmpty { print("No app has asked for access.") }
        var current = ""
        for decision in decisions {
            if decision.bundleIdentifier != current {
                current = decision.bundleIdentifier
                print(current)
            }
            let name = HKObjectType.displayName(forIdentifier: decision.typeIdentifier)
            print("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) read \(Self.word(decision.read))"
                  + "  share \(Self.word(decision.share))  (\(formatDate(decision.decidedAt)))")
        }
    }

    private func requireKnown(_ app: String, _ store: HKHealthStore) throws {
        guard try store.appAuthorizationDecisions().contains(where: { $0.bundleIdentifier == app }) else {
            throw ValidationError("no decisions on record for '\(app)' (see health store apps)")
        }
    }

    private static func word(_ answer: HKAppAuthorizationDecision.Answer) -> String {
        switch answer {
        case .authorized: "allowed"
        case .denied: "denied "
        case .notDetermined: "unset  "
        }
    }
}
