import ArgumentParser
import Foundation
import OpenHealthKit

/// `health records shares [--json]`: which apps were shared which verifiable records, and when.
struct RecordsSharesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shares",
        abstract: "List every time an app asked for verifiable health records: the app, the time and the records shared.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let store = try storeOptions.openStore()
        let shares = try await store.verifiableRecordShares()
        if json {
            print(RecordsFormatter.sharesJSON(shares))
        } else if shares.isEmpty {
            print("No verifiable health records were shared.")
        } else {
            for share in shares {
                let outcome = share.declined ? "declined" : "\(share.recordUUIDs.count) record\(share.recordUUIDs.count == 1 ? "" : "s")"
                print("\(formatDate(share.date))  \(share.appName) (\(share.bundleIdentifier))  \(outcome)")
                for uuid in share.recordUUIDs { print("    \(uuid.uuidString)") }
            }
        }
    }
}
