import ArgumentParser
import Foundation
import HealthRecords
import OpenHealthKit
import RecordsSync

/// `health records sync [--name NAME]`.
struct RecordsSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Bring the records of connected SMART on FHIR servers into the store (every connection, or --name).",
        discussion: """
            For every clinical resource type, searches the patient's resources page by page (only those changed since the \
            last sync), imports them as clinical records, then fetches health cards through $health-cards-issue when the \
            server offers it and imports those that verify. The connection's own https server is trusted as the issuer of \
            its cards (keys from ISS/.well-known/jwks.json over the connection's TLS trust); other issuers are judged by the \
            card options below. Each page is stored with the connection's progress and next link in one transaction: an \
            interrupted sync resumes at the next page. Tokens are refreshed as needed.
            A connection whose patient is not the person of the store's profile (`health profile`) is not synced, and a \
            card whose subject is someone else is not stored, unless --allow-other-person is given.
            Exit status: 0 synced, 1 anything refused or the connection must be renewed, 2 for usage errors or a server \
            that could not be reached.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The connection to sync (default: every one).", valueName: "NAME"))
    var name: String?

    @Flag(help: "Sync even when the connection's patient is not the person of the store's profile.")
    var allowOtherPerson = false

    @OptionGroup var verification: CardVerifierOptions

    func run() async throws {
        let store = try storeOptions.openStore()
        let connections = try await RecordsSynchronizer.connections(in: store)
        var names = connections.map(\.name)
        if let name {
            guard names.contains(name) else { throw InputRefused("no connection named '\(name)' (see `health records connections`)") }
            names = [name]
        }
        guard !names.isEmpty else { throw InputRefused("no connections: run `health records connect FHIR-BASE` first") }
        let (verifier, https) = try verification.makeVerifier()
        let http = SMARTHTTP()
        let synchronizer = RecordsSynchronizer(store: store, http: http, verifier: verifier,
                                               options: .init(allowOtherPerson: allowOtherPerson))
        var failure: RecordsSyncError?
        var refused = false
        for name in names {
            let bar = ImportProgressBar(enabled: isatty(STDERR_FILENO) != 0)
            do {
                let report = try await synchronizer.sync(named: name) { progress in
                    bar.draw(fraction: progress.fraction, count: progress.fetched, noun: "resource")
                }
                bar.finish()
                for line in Self.lines(report) { print(line) }
                await ProfileHint.offer(report.records.people, store: store)
                refused = refused || !report.records.refusals.isEmpty
            } catch {
                bar.finish()
                failure = error
                break
            }
        }
        await https.shutdown()
        try? await http.shutdown()
        if let failure { try RecordsSyncFailure.exit(failure) }
        if refused { throw ExitCode(1) }
    }

    static func lines(_ report: SyncReport) -> [String] {
        var lines = ["synced \(report.connection): fetched \(report.fetched) resource\(report.fetched == 1 ? "" : "s") "
                         + "in \(report.pages) page\(report.pages == 1 ? "" : "s")"]
        for (type, count) in report.fetchedByType.sorted(by: { $0.key < $1.key }) where count > 0 {
            lines.append("  \(type): \(count)")
        }
        for (type, reason) in report.skippedTypes.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(type): not searched (\(reason))")
        }
        lines += RecordsFormatter.importText(report.records)
        if !report.cardsOffered { lines.append("health cards: the server does not offer $health-cards-issue") }
        if report.cardsReplaced > 0 {
            lines.append("health cards: deleted \(report.cardsReplaced) that the server no longer issues (replaced by the cards it issues now)")
        }
        return lines
    }
}
