import ArgumentParser
import FHIRCore
import FhirBlocksClient
import Foundation
import HealthPresentation
import HealthSharing

/// `health share list --server URL --identity WALLET.json [--json]`: the person's links, their
/// status, expiry, remaining passcode attempts, and who opened them when.
struct ShareListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your shared links: status, expiry, passcode attempts left, who opened them and when.",
        discussion: "Exit status: 0 listed; 1 refused by the server; 2 usage or I/O (the server cannot be reached).")

    @OptionGroup var wallet: ShareWalletOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let links = try await wallet.withWallet { client throws(ShareError) in
            do throws(FhirBlocksClientError) {
                return try await client.links()
            } catch {
                throw ShareError(clientError: error)
            }
        }
        if json {
            print(JSONWriter.string(.array(links.map { ShareCLI.json($0, keyKept: nil) }), style: .pretty))
            return
        }
        guard !links.isEmpty else {
            print("No shared links.")
            return
        }
        let formatter = HealthFormatter()
        for (index, link) in links.enumerated() {
            if index > 0 { print("") }
            for line in ShareCLI.lines(link, formatter: formatter) { print(line) }
        }
    }
}

/// `health share update ID --server URL --identity WALLET.json [--store …]`: a long-term link's
/// files replaced with today's content, encrypted with the link's own key.
struct ShareUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Replace a long-term link's files with today's content (the link stays the same).",
        discussion: """
            ID is the link's id (its manifest URL's last segment, as `health share list` prints it). \
            The store the link was created from keeps its key: give the same --store.
            Exit status: 0 updated; 1 refused by the server; 2 usage or I/O.
            """)

    @Argument(help: "The link's id.")
    var id: String

    @OptionGroup var wallet: ShareWalletOptions
    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let store = try storeOptions.openStore()
        let record = try await wallet.withWallet { client throws(ShareError) in
            try await ShareLinks(store: store, wallet: client).update(id: id)
        }
        if json {
            print(JSONWriter.string(ShareCLI.json(record, keyKept: true), style: .pretty))
        } else {
            print("Updated \(record.id): \(record.fileCount) file\(record.fileCount == 1 ? "" : "s") of today's content.")
        }
    }
}

/// `health share revoke ID --server URL --identity WALLET.json`: the link no longer opens.
struct ShareRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a shared link: it no longer opens (404 to every receiver).",
        discussion: "Exit status: 0 revoked; 1 refused by the server (an unknown link); 2 usage or I/O.")

    @Argument(help: "The link's id.")
    var id: String

    @OptionGroup var wallet: ShareWalletOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        // The store forgets the link's key when it is the store the link was created from; a
        // store that does not exist or cannot be opened does not stop the revocation.
        let store = storeOptions.existingStore ? try? storeOptions.openStore() : nil
        try await wallet.withWallet { client throws(ShareError) in
            if let store {
                try await ShareLinks(store: store, wallet: client).revoke(id: id)
            } else {
                do throws(FhirBlocksClientError) {
                    try await client.revokeLink(id: id)
                } catch {
                    throw ShareError(clientError: error)
                }
            }
        }
        print("Revoked \(id).")
    }
}
