import ArgumentParser
import FHIRCore
import FhirBlocks
import FhirBlocksClient
import Foundation

/// `--server URL`: a FhirBlocks server's base URL.
struct FhirBlocksServerOption: ParsableArguments {
    @Option(help: ArgumentHelp("The FhirBlocks server's base URL (its --public-url).", valueName: "URL"))
    var server: String

    /// Runs `body` with a client for the server, shut down afterwards. Maps failures to the
    /// FhirBlocks commands' exit codes: a refusal by the server (HTTP 4xx) prints the server's
    /// reason and exits 1; anything else (unreachable, server fault, bad answer) is a
    /// ``UsageError`` (exit 2).
    func withClient<Result>(_ body: (FhirBlocksClient) async throws -> Result) async throws -> Result {
        let client: FhirBlocksClient
        do {
            client = try FhirBlocksClient(baseURL: server)
        } catch {
            throw UsageError("--server: \(error)")
        }
        do {
            let result = try await body(client)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            if case .transport(_, let reason) = error as? FhirBlocksClientError {
                throw UsageError("cannot reach the server at \(server): \(reason)")
            }
            throw FhirBlocksCLI.mapped(error)
        }
    }
}

/// `--identity FILE`: a saved csi identity.
struct FhirBlocksIdentityOption: ParsableArguments {
    @Option(help: ArgumentHelp("The identity file (JSON with the private key, mode 0600).", valueName: "FILE"))
    var identity: String

    /// Loads the identity (refusing a file others may read).
    func load() throws -> CsiIdentity {
        do {
            return try CsiIdentity.load(from: identity)
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// Fails early when the file exists (registration writes a new one).
    func requireAbsent() throws {
        if FileManager.default.fileExists(atPath: identity) {
            throw UsageError("\(identity) already exists: registration writes a new identity; move it away or choose another --identity")
        }
    }

    /// Saves a newly registered identity.
    func save(_ value: CsiIdentity) throws {
        do {
            try value.save(to: identity)
        } catch {
            throw UsageError("registered \(value.csiGuid) but could not save it: \(error)")
        }
    }
}

/// The options of `wallet grant` and `app grant`.
struct FhirBlocksGrantOptions: ParsableArguments {
    @Option(name: .customLong("to"), help: ArgumentHelp("A grantee's csiGuid (repeat for several).", valueName: "CSI"))
    var grantees: [String] = []

    @Option(help: ArgumentHelp("The resource type, or * for all.", valueName: "TYPE|*"))
    var resource: String

    @Option(help: ArgumentHelp("read, write, * or SMART v2 letters (a subsequence of cruds).", valueName: "read|write|cruds"))
    var access: String

    @Option(help: ArgumentHelp("The confidentiality ceiling: U, L, M, N, R or V.", valueName: "U|L|M|N|R|V"))
    var confidentiality: String

    @Option(help: ArgumentHelp("A sensitive category the grantee may see, e.g. ETH (repeat for several).", valueName: "CODE"))
    var sensitivity: [String] = []

    @Option(help: ArgumentHelp("Start of validity (ISO 8601).", valueName: "ISO8601"))
    var from: String

    @Option(help: ArgumentHelp("End of validity, exclusive (ISO 8601).", valueName: "ISO8601"))
    var until: String

    /// The grantees, scope and window, checked with the protocol core's rules.
    func grant() throws -> (grantees: [CsiGuid], scope: PermissionScope, window: TimeWindow) {
        guard !grantees.isEmpty else { throw UsageError("give at least one --to CSI") }
        var guids: [CsiGuid] = []
        for text in grantees {
            guard let guid = CsiGuid(text) else { throw UsageError("--to: '\(text)' is not a csiGuid (a 36-character UUID)") }
            if !guids.contains(guid) { guids.append(guid) }
        }
        let heart = HeartScope(accessType: access, confidentialityScope: confidentiality, permissionType: PermissionType.patient.rawValue,
                               resourceScope: resource, sensitivityScope: sensitivity)
        let scope: PermissionScope
        do {
            scope = try PermissionScope(heartScope: heart)
        } catch {
            throw UsageError("invalid scope: \(error.errorDescription) (--resource TYPE|*, --access read|write|*|cruds letters, "
                                 + "--confidentiality U|L|M|N|R|V, --sensitivity CODE)")
        }
        let window = TimeWindow(notBefore: FhirBlocksCLI.timestamp(try parseInstant(from)),
                                notAfter: FhirBlocksCLI.timestamp(try parseInstant(until)))
        guard !window.isEmpty else { throw UsageError("--until must be after --from") }
        return (guids, scope, window)
    }
}

/// Shared pieces of the `wallet`, `app` and `audit` commands.
enum FhirBlocksCLI {
    /// A refusal: printed as `error: …`, exit 1.
    static func refuse(_ message: String) -> ExitCode {
        try? FileHandle.standardError.write(contentsOf: Data("Error: \(message)\n".utf8))
        return ExitCode(1)
    }

    /// The exit behaviour of a failure: server refusals exit 1, the rest 2.
    static func mapped(_ error: any Error) -> any Error {
        switch error {
        case let clientError as FhirBlocksClientError:
            return clientError.isRefusal ? refuse(clientError.description) : UsageError(clientError.description)
        case let identityError as CsiIdentityError:
            return UsageError(identityError.description)
        default:
            return error
        }
    }

    /// A csiGuid argument.
    static func guid(_ text: String, option: String) throws -> CsiGuid {
        guard let guid = CsiGuid(text) else { throw UsageError("\(option): '\(text)' is not a csiGuid (a 36-character UUID)") }
        return guid
    }

    /// A date as a protocol timestamp (whole milliseconds).
    static func timestamp(_ date: Date) -> Timestamp {
        Timestamp(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// Pretty JSON text.
    static func pretty(_ value: JSONValue) -> String {
        JSONWriter.string(value, style: .pretty)
    }

    /// One permission as a line of text.
    static func line(_ record: PermissionRecord) -> String {
        var scope = "(no scope)"
        if let heart = record.heartScope {
            scope = (try? PermissionScope(heartScope: heart).description)
                ?? "\(heart.permissionType)/\(heart.resourceScope).\(heart.accessType ?? "read") conf≤\(heart.confidentialityScope)"
        }
        let id = record.permissionId.map { "\($0) " } ?? ""
        let status = record.status.map { " \($0)" } ?? ""
        let patient = record.patientCsiGuid.map { " patient \($0)" } ?? ""
        let permissioned = record.permissionedCsiGuids.joined(separator: ",")
        return "\(id)\(record.grantingCsiGuid) → \(permissioned) \(scope) [\(record.startTime), \(record.endTime))\(status)\(patient)"
    }

    /// Reads a JSON file (or `-`).
    static func readJSON(_ path: String) throws -> JSONValue {
        let bytes = try readInput(path)
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw UsageError("\(path) is not JSON: \(error)")
        }
    }
}
