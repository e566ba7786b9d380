import ArgumentParser
import CommonSupport
import FHIRCore
import FhirBlocksClient
import Foundation
import HealthPresentation
import HealthSharing
import OpenHealthKit

/// The options of `health share create|list|update|revoke`: the wallet (as `health wallet put`
/// reads it) that hosts the person's links.
struct ShareWalletOptions: ParsableArguments {
    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    /// Runs `body` with the person's wallet on the server, shut down afterwards. A refusal by the
    /// server (HTTP 4xx) exits 1; an unreachable server, bad options or a store failure exit 2.
    func withWallet<Result>(_ body: (WalletClient) async throws(ShareError) -> Result) async throws -> Result {
        let me = try identity.load()
        let client: FhirBlocksClient
        do {
            client = try FhirBlocksClient(baseURL: server.server)
        } catch {
            throw UsageError("--server: \(error)")
        }
        do {
            let result = try await body(WalletClient(client: client, identity: me))
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw ShareCLI.mapped(error, server: server.server)
        }
    }
}

/// What the share commands print, and how their failures exit.
enum ShareCLI {
    /// A failure's exit behaviour: refused by the server exits 1, everything else 2.
    static func mapped(_ error: ShareError, server: String) -> any Error {
        if error.isRefusal { return FhirBlocksCLI.refuse(error.description) }
        return UsageError(error.description)
    }

    /// An instant as JSON writes it: ISO 8601 in UTC.
    static func iso(_ date: Date) -> String {
        ISODateText.string(secondsSince1970: date.timeIntervalSince1970)
    }

    /// The flags in words: `P` passcode, `L` long-term, `U` direct.
    static func flagWords(_ flags: String) -> String {
        guard !flags.isEmpty else { return "none" }
        return flags.map { letter -> String in
            switch letter {
            case "P": "P (passcode)"
            case "L": "L (long-term)"
            case "U": "U (direct)"
            default: String(letter)
            }
        }.joined(separator: ", ")
    }

    /// A record as the JSON of `list` and `create` writes it.
    static func json(_ record: SharedLinkRecord, keyKept: Bool?) -> JSONValue {
        var members = [
            JSONMember("id", .string(record.id)),
            JSONMember("manifestURL", .string(record.manifestURL)),
            JSONMember("flags", .string(record.flags)),
            JSONMember("label", record.label.map(JSONValue.string) ?? .null),
            JSONMember("status", .string(record.status)),
            JSONMember("created", .string(iso(record.created))),
            JSONMember("expires", record.expires.map { .string(iso($0)) } ?? .null),
            JSONMember("remainingAttempts", record.remainingAttempts.map { .number(integer: $0) } ?? .null),
            JSONMember("fileCount", .number(integer: record.fileCount)),
            JSONMember("accesses", .array(record.accesses.map { access in
                .object(members: [JSONMember("recipient", .string(access.recipient)), JSONMember("at", .string(iso(access.at))),
                                  JSONMember("outcome", .string(access.outcome))])
            })),
        ]
        if let keyKept { members.append(JSONMember("keyKept", .bool(keyKept))) }
        return .object(members: members)
    }

    /// The human lines about a record (after the link, or in `list`).
    static func lines(_ record: SharedLinkRecord, formatter: HealthFormatter, accesses: Int = 5) -> [String] {
        var lines = [
            "ID: \(record.id)",
            "Label: \(record.label ?? "(none)")",
            "Status: \(record.status)",
            "Expires: \(record.expires.map(formatter.date) ?? "never")",
            "Flags: \(flagWords(record.flags))",
        ]
        if let remaining = record.remainingAttempts { lines.append("Passcode attempts left: \(remaining)") }
        lines.append("Files: \(record.fileCount)")
        if record.accesses.isEmpty {
            lines.append("Opened: never")
        } else {
            lines.append("Opened: \(record.accesses.count) request\(record.accesses.count == 1 ? "" : "s")")
            for access in record.accesses.prefix(accesses) {
                lines.append("  \(formatter.date(access.at))  \(access.recipient) \(access.outcomeWords)")
            }
            if record.accesses.count > accesses { lines.append("  … \(record.accesses.count - accesses) more (--json lists them all)") }
        }
        return lines
    }
}

extension StoreOptions {
    /// Whether the store these options name exists (so that opening it creates nothing).
    var existingStore: Bool {
        var configuration = HKHealthStore.Configuration(role: .owner)
        if let store { configuration.location = .file(URL(fileURLWithPath: store)) }
        guard case .file(let url) = configuration.location else { return true }
        return FileManager.default.fileExists(atPath: url.path)
    }
}
