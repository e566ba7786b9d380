import ArgumentParser
import CommonSupport
import FHIRCore
import Foundation
import HealthPresentation
import HealthSharing
import QRCode

/// `health share create …`: a SMART Health Link to a summary, records or cards of the store,
/// hosted by the person's wallet on a FhirBlocks server.
struct ShareCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Share a summary, records or health cards by a SMART Health Link (shlink:/) and its QR code.",
        discussion: """
            Choose at least one of --summary, --records, --record, --cards, --card. The files are \
            encrypted here with a new key kept sealed in your store (never sent to the server); the \
            server keeps only the ciphertext. The link is printed alone on the first line (with \
            --viewer, the server's viewer address carrying it); then its label, expiry (local time), \
            flags and files.
            Exit status: 0 created; 1 refused by the server; 2 usage or I/O (the server cannot be reached).
            """)

    @OptionGroup var wallet: ShareWalletOptions
    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Share a patient summary (International Patient Summary document) of your clinical records.")
    var summary = false

    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("Share the clinical records of these types (allergyRecord, labResultRecord, …).", valueName: "TYPE"))
    var records: [String] = []

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Share these clinical records, by UUID.", valueName: "UUID"))
    var record: [String] = []

    @Flag(help: "Share every stored health card.")
    var cards = false

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Share these health cards, by UUID.", valueName: "UUID"))
    var card: [String] = []

    @Option(help: "A passcode the receiver must give (flag P).")
    var passcode: String?

    @Option(help: ArgumentHelp("With --passcode: how many wrong passcodes the link accepts in its lifetime (server default 10).",
                               valueName: "N"))
    var attempts: Int?

    @Option(help: ArgumentHelp("When the link expires (ISO 8601).", valueName: "ISO8601"))
    var expires: String?

    @Option(name: .customLong("expires-in"),
            help: ArgumentHelp("How long the link opens: 30d, 12h, 90m, 2w (default 30d).", valueName: "DURATION"))
    var expiresIn: String?

    @Flag(name: .customLong("no-expiry"), help: "The link opens until it is revoked.")
    var noExpiry = false

    @Option(help: ArgumentHelp("A short description the receiver sees (at most 80 characters).", valueName: "TEXT"))
    var label: String?

    @Flag(name: .customLong("long-term"), help: "A long-term link (flag L): `health share update` replaces its files with today's content.")
    var longTerm = false

    @Flag(help: "A direct link (flag U) to a single file, without a manifest; not with --passcode.")
    var direct = false

    @Flag(help: "Print the server's viewer address carrying the link instead of the bare link.")
    var viewer = false

    @Option(help: ArgumentHelp("Write the link's QR code: FILE.png, FILE.svg, or - for the terminal.", valueName: "FILE.png|FILE.svg|-"))
    var qr: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if [expires != nil, expiresIn != nil, noExpiry].filter({ $0 }).count > 1 {
            throw ValidationError("--expires, --expires-in and --no-expiry exclude each other: give one")
        }
        if direct && passcode != nil { throw ValidationError("a direct link (--direct) cannot have a passcode") }
        if direct && longTerm { throw ValidationError("a direct link (--direct) cannot be long-term") }
        if attempts != nil && passcode == nil { throw ValidationError("--attempts limits wrong passcodes: give --passcode too") }
        if let attempts, attempts < 1 { throw ValidationError("--attempts must be at least 1") }
        if let label, label.count > ShareOptions.maximumLabelLength {
            throw ValidationError("--label has \(label.count) characters; at most \(ShareOptions.maximumLabelLength)")
        }
        if !summary && records.isEmpty && record.isEmpty && !cards && card.isEmpty {
            throw ValidationError("choose what to share: --summary, --records TYPE…, --record UUID…, --cards or --card UUID…")
        }
        if let qr, qr != "-", !["png", "svg"].contains(URL(fileURLWithPath: qr).pathExtension.lowercased()) {
            throw ValidationError("--qr: use a .png or .svg file name, or - for the terminal")
        }
    }

    func run() async throws {
        let options = try shareOptions()
        let store = try storeOptions.openStore()
        let created = try await wallet.withWallet { client throws(ShareError) in
            try await ShareLinks(store: store, wallet: client).create(options)
        }
        let link = viewer ? created.viewerLink : created.link
        var qrText: String?
        if let qr {
            let code: QRCode
            do {
                code = try QRCode.encode(text: link, errorCorrection: .medium)
            } catch {
                throw UsageError("the link does not fit a QR code: \(error)")
            }
            if qr == "-" {
                qrText = code.terminalText()
            } else {
                let bytes = URL(fileURLWithPath: qr).pathExtension.lowercased() == "svg" ? Array(code.svg().utf8) : code.png()
                do {
                    // The QR code holds the link's key: written readable by its owner only.
                    try SecretFile.save(bytes, to: qr, replacing: true)
                } catch {
                    throw UsageError("the link was created (\(created.record.id)) but its QR code could not be written: \(error)")
                }
            }
        }
        if json {
            var object = ShareCLI.json(created.record, keyKept: true).objectValue ?? JSONObject()
            object.members.insert(JSONMember("viewerLink", .string(created.viewerLink)), at: 0)
            object.members.insert(JSONMember("link", .string(created.link)), at: 0)
            print(JSONWriter.string(.object(object), style: .pretty))
            if let qrText { try? FileHandle.standardError.write(contentsOf: Data((qrText + "\n").utf8)) }
            return
        }
        print(link)
        let formatter = HealthFormatter()
        print("Label: \(created.record.label ?? "(none)")")
        print("Expires: \(created.record.expires.map(formatter.date) ?? "never")")
        print("Flags: \(ShareCLI.flagWords(created.record.flags))")
        print("Files: \(created.record.fileCount)")
        print("ID: \(created.record.id)")
        if let qr, qr != "-" { print("QR code: \(qr)") }
        if let qrText { print(qrText) }
    }

    /// The library's options from the command line (after `validate()`).
    func shareOptions() throws -> ShareOptions {
        var contents: [ShareContent] = []
        if summary { contents.append(.summary) }
        if !records.isEmpty { contents.append(.records(types: records)) }
        for text in record {
            guard let uuid = UUID(uuidString: text) else { throw UsageError("--record: '\(text)' is not a UUID") }
            contents.append(.record(uuid))
        }
        if cards { contents.append(.cards) }
        for text in card {
            guard let uuid = UUID(uuidString: text) else { throw UsageError("--card: '\(text)' is not a UUID") }
            contents.append(.card(uuid))
        }
        let expiry: ShareExpiry
        if noExpiry {
            expiry = .never
        } else if let expires {
            expiry = .at(try parseInstant(expires))
        } else if let expiresIn {
            expiry = .after(try Self.duration(expiresIn))
        } else {
            expiry = .after(.seconds(30 * 86_400))
        }
        return ShareOptions(contents: contents, passcode: passcode, attempts: attempts, expiry: expiry,
                            label: label.flatMap { $0.isEmpty ? nil : $0 }, longTerm: longTerm, direct: direct)
    }

    /// The longest `--expires-in`: 100 years, in seconds.
    static let longestExpiry: Int64 = 100 * 365 * 86_400

    /// `30d`, `12h`, `90m`, `45s`, `2w`: a whole number and a unit.
    static func duration(_ text: String) throws -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        let digits = trimmed.dropLast()
        guard let unit = trimmed.last, let seconds = units[unit], !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw UsageError("--expires-in: '\(text)' is not a duration such as 30d, 12h, 90m or 2w")
        }
        let limit = Self.longestExpiry / seconds
        // Digits too many for Int64 are beyond the limit too.
        let count = Int64(digits) ?? Int64.max
        guard count > 0 else { throw UsageError("--expires-in: '\(text)' is no time at all; give at least 1\(unit), or --no-expiry") }
        guard count <= limit else {
            throw UsageError("--expires-in: '\(text)' is too long; at most 100 years (\(limit)\(unit)), or --no-expiry")
        }
        return .seconds(count * seconds)
    }
}
