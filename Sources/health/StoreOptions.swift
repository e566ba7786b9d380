import CommonSupport
import ArgumentParser
import Foundation
import HealthPresentation
import OpenHealthKit

/// Options every `health store` command shares: which store, and which key opens it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file.", discussion:
        "Default: $OPENHEALTHKIT_STORE, else $XDG_DATA_HOME/openhealthkit/health.sqlite, else $HOME/.local/share/openhealthkit/health.sqlite.",
        valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("A file holding the 256-bit store key (default: health.key beside the database).",
                                            valueName: "path"))
    var keyFile: String?

    @Option(name: .long, help: ArgumentHelp("Read the passphrase from this environment variable instead of a key file.",
                                            valueName: "name"))
    var passphraseEnv: String?

    /// Opens the store as its owner and reports a wrong key or a bad file at once, in words
    /// that name the store's path (``StoreOpenError``: 2 when the store cannot be read, 1 when
    /// the key does not open it).
    func openStore() throws -> HKHealthStore {
        var configuration = HKHealthStore.Configuration(role: .owner)
        configuration.source = HKSource(name: "health CLI", bundleIdentifier: "org.openhealthkit.health-cli")
        if let store { configuration.location = .file(URL(fileURLWithPath: store)) }
        let path: String? = if case .file(let url) = configuration.location { url.path } else { nil }
        if let path { try Self.checkStoreFile(path) }
        if let passphraseEnv {
            guard let passphrase = ProcessInfo.processInfo.environment[passphraseEnv], !passphrase.isEmpty else {
                throw ValidationError("the environment variable \(passphraseEnv) is not set")
            }
            configuration.key = .passphrase(passphrase)
        } else if let keyFile {
            configuration.key = .keyFile(URL(fileURLWithPath: keyFile))
        }
        let healthStore = HKHealthStore(configuration: configuration)
        do {
            try healthStore.open()
        } catch let error as HealthStoreError {
            guard let path else { throw error }
            throw Self.openError(error, path: path)
        }
        return healthStore
    }

    /// Refuses, before SQLite does in its own words, a store path that is a folder, cannot be
    /// read, or lies under a file.
    static func checkStoreFile(_ path: String) throws(StoreOpenError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                throw StoreOpenError(description: "cannot open the store at \(path): it is a folder, not a store file", status: .usageOrIO)
            }
            if !FileManager.default.isReadableFile(atPath: path) {
                throw StoreOpenError(description: "cannot open the store at \(path): permission denied", status: .usageOrIO)
            }
            return
        }
        // A new store: its folder is created, unless a file stands where a folder must be.
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while folder.path != "/", !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) {
            folder.deleteLastPathComponent()
        }
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw StoreOpenError(description: "cannot create the store at \(path): \(folder.path) is a file, not a folder", status: .usageOrIO)
        }
    }

    /// A store error met while opening the store at `path`, in words.
    static func openError(_ error: HealthStoreError, path: String) -> StoreOpenError {
        switch error.kind {
        case .wrongKey:
            return StoreOpenError(description: "the key does not open the store at \(path)", status: .refused)
        case .corruptDatabase:
            return StoreOpenError(description: "cannot open the store at \(path): it is not an OpenHealthKit store", status: .usageOrIO)
        case .unsupportedSchema:
            return StoreOpenError(description: "cannot open the store at \(path): it was written by a newer version of OpenHealthKit", status: .usageOrIO)
        case .keyUnavailable:
            return StoreOpenError(description: "cannot open the store at \(path): \(error.message)", status: .usageOrIO)
        case .io:
            let reason = ErrorReport.sqliteReason(error.message) ?? ErrorReport.plainSQLite(error.message)
            return StoreOpenError(description: "cannot open the store at \(path): \(reason)", status: .usageOrIO)
        default:
            let (message, status) = ErrorReport.describe(error)
            return StoreOpenError(description: message, status: status)
        }
    }
}

/// Parses the type names people type: everyday names (`weight`, `steps`, `heart-rate`,
/// `blood-pressure`, `sleep`; `health store types` lists them) and HealthKit's (`bodyMass`).
func parseSampleType(_ name: String) throws -> HKSampleType {
    do {
        return try HealthTypes.sampleType(named: name)
    } catch {
        throw ValidationError(error.description)
    }
}

/// Parses a unit people type (`bpm`, `kg`, `°C`, `mmol/L`, or a HealthKit unit string), with a
/// clear message.
func parseUnit(_ text: String) throws -> HKUnit {
    try parseUnit(text, for: nil)
}

/// Parses a unit people type for `type`: `mmol/L` takes the type's molar mass, and a unit that
/// does not measure the type is refused with the units that do.
func parseUnit(_ text: String, for type: HKQuantityType?) throws -> HKUnit {
    do {
        return try HealthUnits.unit(text, for: type)
    } catch {
        throw ValidationError(error.description)
    }
}

/// Parses ISO 8601 dates and date-times: `2026-11-20`, `2026-11-20T08:30`, `2026-11-20T08:30:00Z`,
/// `2026-11-20T08:30:00+01:00`; dates and zone-less times are local. `now` and `today` too.
func parseDate(_ text: String) throws -> Date {
    // A complete instant (the usual `--at`) needs none of the local-time formatters.
    if let instant = try? Date(text, strategy: .iso8601) { return instant }
    return try DateText.shared.parse(text)
}

/// Formats a date for tables: local time to the minute, with the zone (`2026-11-20 08:30 UTC`),
/// as ``HealthFormatter`` writes it for the CLI and the web page.
func formatDate(_ date: Date) -> String {
    HealthFormatter.local.date(date)
}

/// Formats a date for JSON and reports: ISO 8601 in UTC to the second (`2021-01-29T00:00:00Z`),
/// as Foundation's `.iso8601` style writes it, with integer arithmetic (`ISODateText`): a report
/// formats several dates per card, and Foundation's formatter costs more than verifying the
/// card's signature.
func isoDate(_ date: Date) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(20)
    appendISODate(date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// Appends ``isoDate(_:)``'s text as UTF-8 to `bytes` (a report writes its dates into its buffer).
/// A date no day count holds (a card's `exp` of 1e19 seconds, which verifies and is stored) is
/// written as its number of seconds, as `ISODateText.string(secondsSince1970:)` writes it: converted
/// to `Int`, it trapped `shc verify --json`, `records list --json` and `records show`.
func appendISODate(_ date: Date, to bytes: inout [UInt8]) {
    let seconds = date.timeIntervalSince1970
    guard seconds.isFinite, abs(seconds) < 1e15 else {
        bytes.append(contentsOf: ISODateText.string(secondsSince1970: seconds).utf8)
        return
    }
    ISODateText.append(secondsSince1970: Int(seconds.rounded(.down)), to: &bytes)
}

/// The date formats of the CLI, built once: Foundation's formatters are costly to create, and
/// an import parses a date per line.
final class DateText: @unchecked Sendable {
    static let shared = DateText()

    private let lock = NSLock()
    private let localFormatters: [DateFormatter]
    private let tableFormatter: DateFormatter

    private init() {
        localFormatters = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"].map {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = .current
            formatter.dateFormat = $0
            return formatter
        }
        tableFormatter = DateFormatter()
        tableFormatter.locale = Locale(identifier: "en_US_POSIX")
        tableFormatter.timeZone = .current
        tableFormatter.dateFormat = "yyyy-MM-dd HH:mm"
    }

    func parse(_ text: String) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "now" { return Date() }
        if trimmed == "today" { return Calendar.current.startOfDay(for: Date()) }
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        if let date = try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        lock.lock()
        defer { lock.unlock() }
        for formatter in localFormatters {
            if let date = formatter.date(from: trimmed) { return date }
        }
        throw ValidationError("invalid date '\(text)': use ISO 8601, e.g. 2026-11-20 or 2026-11-20T08:30:00Z")
    }

    func local(_ date: Date) -> String {
        lock.lock()
        defer { lock.unlock() }
        return tableFormatter.string(from: date)
    }
}

/// Formats a number without noise, to four significant digits and never in exponent form:
/// 72, 5.55, 0.2, 12345678.
func formatNumber(_ value: Double) -> String {
    NumberText.format(value, decimals: value == value.rounded() ? 0 : NumberText.significantDecimals(value, digits: 4), grouping: false)
}

/// Writes to standard error.
func printError(_ text: String) {
    try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
}

/// Runs `work`, showing a spinner on standard error while it takes longer than half a second,
/// when standard error is a terminal: for reads over long histories.
func withActivity<T: Sendable>(_ label: String, _ work: () async throws -> T) async throws -> T {
    guard isatty(STDERR_FILENO) != 0 else { return try await work() }
    let spinner = Task {
        try await Task.sleep(nanoseconds: 500_000_000)
        let frames = ["|", "/", "-", "\\"]
        var index = 0
        while !Task.isCancelled {
            try? FileHandle.standardError.write(contentsOf: Data("\r\(label) \(frames[index % frames.count])".utf8))
            index += 1
            try await Task.sleep(nanoseconds: 120_000_000)
        }
    }
    defer {
        spinner.cancel()
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8))
    }
    return try await work()
}

/// Shows progress on standard error when it is a terminal.
struct Progress {
    let label: String
    let total: Int?
    /// On a terminal: one line rewritten in place.
    private let interactive = isatty(STDERR_FILENO) != 0
    /// Asked for (`--progress`): a line per update, for a program reading standard error.
    private let lines: Bool

    init(_ label: String, total: Int?, lines: Bool = false) {
        self.label = label
        self.total = total
        self.lines = lines
    }

    func update(_ done: Int) {
        guard interactive || lines else { return }
        let counts = total.map { "\(done)/\($0)" } ?? "\(done)"
        try? FileHandle.standardError.write(contentsOf: Data((lines ? "\(label) \(counts)\n" : "\r\(label) \(counts)").utf8))
    }

    func finish() {
        guard interactive, !lines else { return }
        try? FileHandle.standardError.write(contentsOf: Data("\n".utf8))
    }
}
