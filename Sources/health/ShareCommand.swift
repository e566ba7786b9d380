import ArgumentParser
import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards
import HealthSharing
import SmartHealthLinks

/// `health share …`: SMART Health Links.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share by SMART Health Links (shlink:/) and their QR codes, and open links you are given.",
        subcommands: [ShareCreateCommand.self, ShareListCommand.self, ShareUpdateCommand.self, ShareRevokeCommand.self,
                      ShareOpenCommand.self])
}

/// `health share open LINK|QR-IMAGE`: fetches a link's files, decrypts them, verifies each card as
/// `health shc verify` does, and prints what the files hold.
struct ShareOpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a SMART Health Link: fetch, decrypt and show its files.",
        discussion: """
            LINK is a shlink:/ link, a viewer address ending in #shlink:/…, or a file holding one \
            (text, or a QR code image). Cards are verified exactly as `health shc verify` does.
            With --import, the files' cards and FHIR records are stored through the same importer as \
            `health records import` (a card that does not verify is never stored).
            Exit status: 0 opened (and imported); 1 refused (a wrong passcode, a link no longer \
            active, a file that does not decrypt, a card that does not verify, a record refused); \
            2 usage or I/O (the server cannot be reached).
            """)

    @Argument(help: ArgumentHelp("The link, a viewer address, or a file with the link or its QR code.", valueName: "LINK|QR-IMAGE"))
    var link: String

    @Option(help: "The link's passcode, when it has one.")
    var passcode: String?

    @Option(help: "Your name, as the person who shared the link will see it in their log.")
    var recipient = "health share open"

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(name: .customLong("import"), help: "Store the files' records and cards in your store (a card that does not verify is never stored).")
    var importFiles = false

    @Flag(help: "With --import: store records even when their patient is not the person of the store's profile.")
    var allowOtherPerson = false

    @OptionGroup var verification: CardVerifierOptions

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let payload = try Self.readLink(link)
        let now = try verification.at.map(parseInstant) ?? Date()
        let (verifier, https) = try verification.makeVerifier()
        let opener = SharedLinkOpener(verifier: verifier)
        let opened: OpenedSharedLink
        do {
            opened = try await opener.open(payload, recipient: recipient, passcode: passcode, now: now)
        } catch {
            await https.shutdown()
            if case .unreachable = error { throw UsageError(error.description) }
            throw InputRefused(error.description)
        }
        let shown = opened.reports.map(Self.shown)
        var imported: HealthRecordImportReport?
        let released = RecordsFormatter.StoredSummary()
        var store: HKHealthStore?
        if importFiles {
            do {
                let openedStore = try storeOptions.openStore()
                store = openedStore
                imported = try await Self.importing(opened, with: opener, into: openedStore, now: now, allowOtherPerson: allowOtherPerson)
            } catch {
                await https.shutdown()
                throw error
            }
        }
        await https.shutdown()
        if json {
            let importJSON = imported.flatMap { try? JSONParser.parse(RecordsFormatter.importJSON($0, released: released)) }
            let document = OpenedLink(label: payload.label, flags: payload.flags.letters, files: shown, imported: importJSON)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(document), as: UTF8.self))
        } else {
            if let label = payload.label { print("“\(label)”") }
            print(opened.files.count == 1 ? "1 file" : "\(opened.files.count) files")
            for file in shown { print(file.text, terminator: "") }
            if let imported {
                for line in RecordsFormatter.importText(imported, released: released) { print(line) }
                if !imported.otherPeople.isEmpty {
                    print("To store another person's records in this store anyway, run the command again with --allow-other-person.")
                }
            }
        }
        if let imported, let store {
            await ProfileHint.offer(imported.people, store: store)
            if !imported.refusals.isEmpty || !imported.unreadable.isEmpty { throw ExitCode(1) }
        }
        if shown.contains(where: { !$0.valid }) { throw ExitCode(1) }
    }

    /// Stores the link's cards and FHIR files through the opener (the importer of `health records
    /// import`); a store's error is thrown as it is, so its exit status is the one it always had.
    static func importing(_ opened: OpenedSharedLink, with opener: SharedLinkOpener, into store: HKHealthStore, now: Date,
                          allowOtherPerson: Bool) async throws -> HealthRecordImportReport {
        do {
            return try await opener.importFiles(opened, into: store, now: now, allowOtherPerson: allowOtherPerson)
        } catch {
            if case .importFailed(let underlying) = error { throw underlying }
            throw InputRefused(error.description)
        }
    }

    /// The link in `text`: the text itself, or the file it names (text or a QR image).
    static func readLink(_ text: String) throws -> SHLinkPayload {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let linkText: String
        if trimmed.hasPrefix(SHLink.prefix) || trimmed.contains("#" + SHLink.prefix) {
            linkText = trimmed
        } else {
            // A file: its text, or the text of the QR codes in its image (the first that is a link).
            let texts = String(decoding: try cardText(of: text), as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            linkText = SharedLinkOpener.linkText(among: texts)
        }
        do {
            return try SHLink.parse(linkText)
        } catch {
            throw InputRefused(error.description)
        }
    }

    /// One file, as printed and as JSON.
    struct OpenedFile: Encodable {
        var contentType: String?
        var bytes: Int
        var cards: [SHCVerificationReport]?
        var resourceType: String?
        var resources: [String: Int]?
        var valid: Bool
        var text: String

        enum CodingKeys: String, CodingKey { case contentType, bytes, cards, resourceType, resources, valid }
    }

    struct OpenedLink: Encodable {
        var label: String?
        var flags: String
        var files: [OpenedFile]
        /// With `--import`: the report `health records import --json` prints.
        var imported: JSONValue?
    }

    /// A file's report as printed: its cards with their verdicts, or its FHIR resources counted by type.
    static func shown(_ report: SharedLinkFileReport) -> OpenedFile {
        var opened = OpenedFile(contentType: report.contentType, bytes: report.bytes, cards: report.cards, resourceType: report.resourceType,
                                resources: report.resources, valid: report.valid, text: "")
        let number = report.number
        let kind = report.contentType ?? "unknown content"
        switch report.contentType {
        case SHLContentType.smartHealthCard?:
            guard let reports = report.cards else {
                opened.text = "File \(number): \(kind), but \(report.problem ?? "not a card file")\n"
                return opened
            }
            var text = "File \(number): \(kind), \(reports.count == 1 ? "1 card" : "\(reports.count) cards")\n"
            for (index, card) in reports.enumerated() {
                text += String(decoding: ShcReportWriter.text(input: "file \(number)", number: reports.count > 1 ? index + 1 : nil, report: card),
                               as: UTF8.self)
            }
            opened.text = text
        case SHLContentType.fhirJSON?:
            guard let type = report.resourceType else {
                opened.text = "File \(number): \(kind), but not a FHIR resource\n"
                return opened
            }
            if let counts = report.resources {
                let total = counts.values.reduce(0, +)
                let listed = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                let bundleType = report.bundleType.map { " (\($0))" } ?? ""
                let resources = total == 1 ? "1 resource" : "\(total) resources"
                opened.text = "File \(number): FHIR Bundle\(bundleType) with \(resources)\(listed.isEmpty ? "" : ": \(listed)")\n"
            } else {
                opened.text = "File \(number): FHIR \(type)\n"
            }
        default:
            opened.text = "File \(number): \(kind), \(report.bytes) bytes (not shown)\n"
        }
        return opened
    }
}
