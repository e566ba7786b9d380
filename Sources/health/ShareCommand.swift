import ArgumentParser
import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit
import RecordsSync
import SmartHealthCards
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
        let http = SMARTHTTP(timeout: .seconds(30), maximumBody: SHLFile.defaultMaximumSize / 3 * 4 + 65_536)
        let files: [SHLReceivedFile]
        do {
            files = try await SHLReceiver(transport: SMARTHTTPTransport(http: http)).open(payload, recipient: recipient, passcode: passcode, now: now)
        } catch {
            try? await http.shutdown()
            if case .unreachable = error { throw UsageError(error.description) }
            throw InputRefused(error.description)
        }
        try? await http.shutdown()

        let (verifier, https) = try verification.makeVerifier()
        var shown: [OpenedFile] = []
        for (index, file) in files.enumerated() {
            shown.append(await Self.describe(file, number: index + 1, verifier: verifier))
        }
        var imported: HealthRecordImportReport?
        let released = RecordsFormatter.StoredSummary()
        var store: HKHealthStore?
        if importFiles {
            do {
                let opened = try storeOptions.openStore()
                store = opened
                imported = try await Self.importFiles(files, into: opened, verifier: verifier, label: payload.label,
                                                      now: now, allowOtherPerson: allowOtherPerson)
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
            print(files.count == 1 ? "1 file" : "\(files.count) files")
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

    /// Stores the cards and FHIR files of a link through the importer of `health records import`.
    static func importFiles(_ files: [SHLReceivedFile], into store: HKHealthStore, verifier: SHCVerifier, label: String?,
                            now: Date, allowOtherPerson: Bool) async throws -> HealthRecordImportReport {
        let importer = HealthRecordImporter(store: store, verifier: verifier,
                                            options: .init(sourceName: label ?? "SMART Health Link", now: now, allowOtherPerson: allowOtherPerson))
        var report = HealthRecordImportReport()
        for (index, file) in files.enumerated()
        where file.contentType == SHLContentType.smartHealthCard || file.contentType == SHLContentType.fhirJSON {
            try await importer.importInput(file.content, named: "file \(index + 1)", into: &report)
        }
        return report
    }

    /// The link in `text`: the text itself, or the file it names (text or a QR image).
    static func readLink(_ text: String) throws -> SHLinkPayload {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let linkText: String
        if trimmed.hasPrefix(SHLink.prefix) || trimmed.contains("#" + SHLink.prefix) {
            linkText = trimmed
        } else {
            // A file: its text, or the text of the QR codes in its image (the first that is a link).
            let texts = String(decoding: try cardText(of: text), as: UTF8.self).split(whereSeparator: \.isNewline)
            linkText = texts.first { $0.contains(SHLink.prefix) }.map(String.init) ?? texts.first.map(String.init) ?? ""
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

    /// What a file holds: its cards verified, or its FHIR resources counted by type.
    static func describe(_ file: SHLReceivedFile, number: Int, verifier: SHCVerifier) async -> OpenedFile {
        var opened = OpenedFile(contentType: file.contentType, bytes: file.content.count, valid: true, text: "")
        let kind = file.contentType ?? "unknown content"
        switch file.contentType {
        case SHLContentType.smartHealthCard?:
            let cards: [SHCInput.Card]
            do {
                cards = try SHCInput.parse(file.content)
            } catch {
                opened.valid = false
                opened.text = "File \(number): \(kind), but not a card file (\(error))\n"
                return opened
            }
            var reports: [SHCVerificationReport] = []
            await verifier.verifyAll(cards) { _, chunk in reports.append(contentsOf: chunk) }
            opened.cards = reports
            opened.valid = reports.allSatisfy(\.isValid)
            var text = "File \(number): \(kind), \(cards.count == 1 ? "1 card" : "\(cards.count) cards")\n"
            for (index, report) in reports.enumerated() {
                text += String(decoding: ShcReportWriter.text(input: "file \(number)", number: cards.count > 1 ? index + 1 : nil, report: report),
                               as: UTF8.self)
            }
            opened.text = text
        case SHLContentType.fhirJSON?:
            guard let resource = try? JSONParser.parse(file.content), let type = resource["resourceType"]?.stringValue else {
                opened.valid = false
                opened.text = "File \(number): \(kind), but not a FHIR resource\n"
                return opened
            }
            opened.resourceType = type
            if type == "Bundle" {
                var counts: [String: Int] = [:]
                for entry in resource["entry"]?.arrayValue ?? [] {
                    if let entryType = entry["resource"]?["resourceType"]?.stringValue { counts[entryType, default: 0] += 1 }
                }
                opened.resources = counts
                let total = counts.values.reduce(0, +)
                let listed = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                let bundleType = resource["type"]?.stringValue.map { " (\($0))" } ?? ""
                opened.text = "File \(number): FHIR Bundle\(bundleType) with \(total == 1 ? "1 resource" : "\(total) resources")\(listed.isEmpty ? "" : ": \(listed)")\n"
            } else {
                opened.text = "File \(number): FHIR \(type)\n"
            }
        default:
            opened.text = "File \(number): \(kind), \(file.content.count) bytes (not shown)\n"
        }
        return opened
    }
}

/// The application's HTTP client (RecordsSync's, redirects not followed, bodies capped, TLS 1.2 or
/// later against the system's or `SSL_CERT_FILE`'s authorities) as a links receiver's transport.
struct SMARTHTTPTransport: SHLTransport {
    let http: SMARTHTTP

    func postJSON(_ url: String, json: [UInt8]) async throws -> SHLHTTPResponse {
        try await Self.translating { () async throws(RecordsSyncError) -> SMARTHTTP.Response in try await http.postJSON(url, body: json) }
    }

    func get(_ url: String) async throws -> SHLHTTPResponse {
        try await Self.translating { () async throws(RecordsSyncError) -> SMARTHTTP.Response in try await http.get(url, accept: "application/jose") }
    }

    /// The client's errors in the receiver's terms: a network failure (its reason in words), or an
    /// answer over the size limit (a refused file, not an unreachable server).
    private static func translating(_ call: () async throws(RecordsSyncError) -> SMARTHTTP.Response) async throws -> SHLHTTPResponse {
        do {
            let answer = try await call()
            return SHLHTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        } catch {
            switch error {
            case .malformedResponse(let text): throw SHLReceiveError.answerTooLarge(text)
            case .transport(let text): throw SHLReceiveError.unreachable(text)
            default: throw SHLReceiveError.unreachable(error.description)
            }
        }
    }
}
