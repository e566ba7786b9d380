import ArgumentParser
import FHIRCore
import FhirBlocks
import FhirBlocksClient
import Foundation

/// `health audit verify --server URL [--identity FILE] | --database FILE|DIR|URL [--data-dir DIR] [--public-key PEM]
/// [--checkpoint-file FILE] [--witness-key VKEY]… [--json]`.
struct AuditVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Fetch the whole audit log and re-check it: canonical entries, leaf hashes, checkpoint signatures and roots, consistency.",
        discussion: """
            Over --server, checkpoints, leaf hashes and proofs are public, but an entry's content is released \
            only to the patient it concerns, the agent that acted and auditors: without --identity the entries are \
            checked through their leaf hashes alone. With --identity of a client the server lists as an auditor \
            (health serve --auditor CSI), every entry is checked in full. \
            With --checkpoint-file, the latest checkpoint verified is kept in that file, and the next run requires \
            the log's latest checkpoint to extend it (the server's consistency proof between the two must verify): \
            a log rolled back or forked since is refused. With --witness-key, some signed checkpoint must carry a \
            valid cosignature/v1 by that witness (health audit witness asks for one). \
            Exit status: 0 when the log is intact, 1 when it was tampered with (the first tampered entry or \
            range is named), 2 when the log cannot be read or on usage errors.
            """)

    @Option(help: ArgumentHelp("The FhirBlocks server's base URL (its --public-url).", valueName: "URL"))
    var server: String?

    @Option(help: ArgumentHelp("Read the log from the server's database instead, named as health serve --database names it: "
                                   + "its SQLite file, its data folder, or a postgres:// URL.",
                               valueName: "FILE|DIR|URL"))
    var database: String?

    @Option(name: .customLong("data-dir"),
            help: ArgumentHelp("With --database: the server's data folder, whose audit-key.pem names the checkpoint key, read with the server's checks "
                                   + "(default: the SQLite file's folder; ./health-data with PostgreSQL).",
                               valueName: "DIR"))
    var dataDirectory: String?

    @Option(help: ArgumentHelp("With --server: an auditor's identity file; its system/AuditEvent.rs token reads every entry's content.", valueName: "FILE"))
    var identity: String?

    @Option(help: ArgumentHelp("Require checkpoints signed by this key (PEM SubjectPublicKeyInfo) instead of trusting /audit/key.", valueName: "FILE"))
    var publicKey: String?

    @Option(name: .customLong("checkpoint-file"),
            help: ArgumentHelp("Keep the latest verified checkpoint in FILE and require the log to extend the one kept there before.",
                               valueName: "FILE"))
    var checkpointFile: String?

    @Option(name: .customLong("witness-key"),
            help: ArgumentHelp("Require a valid cosignature by this witness (a signed-note verifier key of type 0x04: name+id+base64).",
                               valueName: "VKEY"))
    var witnessKeys: [String] = []

    @Flag(help: "Print a machine-readable JSON report.")
    var json = false

    func run() async throws {
        var pinned: CsiPublicKey?
        if let publicKey {
            do {
                pinned = try CsiPublicKey(pem: String(decoding: try readInput(publicKey), as: UTF8.self))
            } catch let error as UsageError {
                throw error
            } catch {
                throw UsageError("--public-key: \(error)")
            }
        }
        var witnesses: [NoteVerifierKey] = []
        for text in witnessKeys {
            guard let key = try? NoteVerifierKey(text: text), key.type == NoteVerifierKey.cosignatureType else {
                throw UsageError("--witness-key: not a cosignature verifier key (name+8 hex digits+base64 of 0x04 and an Ed25519 key): \(text)")
            }
            witnesses.append(key)
        }
        let previous = try checkpointFile.flatMap(Self.readKeptCheckpoint)
        let verifier = AuditVerifier(pinnedKey: pinned, previousCheckpoint: previous, witnessKeys: witnesses)
        let report: AuditVerificationReport
        switch (server, database) {
        case (let server?, nil):
            let auditor = try identity.map { try FhirBlocksIdentityOption.parse(["--identity", $0]).load() }
            report = try await FhirBlocksServerOption.parse(["--server", server]).withClient { client in
                var token: String?
                if let auditor {
                    do {
                        token = try await CsiSession(client: client, identity: auditor)
                            .clientCredentialsToken(scope: PermissionScope.auditorScopeText, patient: auditor.csiGuid).accessToken
                    } catch {
                        throw UsageError("--identity: no auditor token (is it listed with health serve --auditor?): \(error)")
                    }
                }
                do {
                    return try await verifier.verify(AuditClient(client: client, accessToken: token))
                } catch {
                    throw UsageError("cannot read the audit log: \(error)")
                }
            }
        case (nil, let database?):
            guard identity == nil else { throw UsageError("--identity goes with --server") }
            report = try await AuditDatabase.verify(database: database, dataDirectory: dataDirectory, pinned: pinned, with: verifier)
        default:
            throw UsageError("give exactly one of --server URL and --database FILE|DIR|URL")
        }
        if json {
            print(FhirBlocksCLI.pretty(Self.json(report)))
        } else {
            for line in Self.text(report) { print(line) }
        }
        if !report.isIntact { throw ExitCode(1) }
        if let checkpointFile, let latest = report.latestCheckpoint { try Self.keep(latest, in: checkpointFile) }
    }

    /// The checkpoint body kept by an earlier run, or nil when the file does not exist yet.
    static func readKeptCheckpoint(_ path: String) throws -> Checkpoint? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try Checkpoint(body: String(decoding: try readInput(path), as: UTF8.self))
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("--checkpoint-file \(path): not a kept checkpoint (\(error))")
        }
    }

    /// Replaces the kept checkpoint with `checkpoint`'s body (written beside it, then renamed).
    static func keep(_ checkpoint: Checkpoint, in path: String) throws {
        do {
            try Data(checkpoint.body.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw UsageError("--checkpoint-file \(path): cannot write: \(error.localizedDescription)")
        }
    }

    static func text(_ report: AuditVerificationReport) -> [String] {
        var lines: [String] = []
        let sizes = report.verifiedCheckpointSizes
        lines.append("\(report.entriesChecked) of \(report.treeSize) entries checked; \(sizes.count) signed checkpoint\(sizes.count == 1 ? "" : "s")"
                     + (report.latestCheckpoint.map { ", latest at size \($0.treeSize) (\($0.timestamp.wireText))" } ?? ""))
        if report.entriesWithheld > 0 {
            lines.append("\(report.entriesWithheld) entries were served as leaf hashes only (their content is for the patient, the agent and auditors)")
        }
        for (witness, size) in report.cosignedSizes.sorted(by: { $0.key < $1.key }) {
            lines.append("cosigned by the witness \(witness) at size \(size)")
        }
        if report.uncheckpointedEntries > 0 {
            lines.append("\(report.uncheckpointedEntries) entries after the latest checkpoint are not yet covered by a signature")
        }
        guard let first = report.firstProblem else {
            lines.append("intact")
            return lines
        }
        lines.append("TAMPERED: \(first)")
        for problem in report.problems.dropFirst() { lines.append("  also: \(problem)") }
        return lines
    }

    static func json(_ report: AuditVerificationReport) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember(key: "intact", value: .bool(report.isIntact)),
            JSONMember(key: "treeSize", value: .number(String(report.treeSize))),
            JSONMember(key: "entriesChecked", value: .number(String(report.entriesChecked))),
            JSONMember(key: "entriesWithheld", value: .number(String(report.entriesWithheld))),
            JSONMember(key: "checkpointSizes", value: .array(report.verifiedCheckpointSizes.map { .number(String($0)) })),
        ]
        if let latest = report.latestCheckpoint {
            members.append(JSONMember(key: "latestCheckpoint", value: .object(JSONObject(members: [
                JSONMember(key: "treeSize", value: .number(String(latest.treeSize))),
                JSONMember(key: "rootHash", value: .string(latest.rootHash.hex)),
                JSONMember(key: "timestamp", value: .string(latest.timestamp.wireText)),
            ]))))
        }
        if !report.cosignedSizes.isEmpty {
            members.append(JSONMember(key: "cosignedSizes", value: .object(JSONObject(members: report.cosignedSizes.sorted { $0.key < $1.key }.map {
                JSONMember(key: $0.key, value: .number(String($0.value)))
            }))))
        }
        if let index = report.firstTamperedIndex {
            members.append(JSONMember(key: "firstTamperedIndex", value: .number(String(index))))
        }
        members.append(JSONMember(key: "problems", value: .array(report.problems.map { problem in
            var fields = [JSONMember(key: "code", value: .string(problem.code))]
            if let position = problem.position { fields.append(JSONMember(key: "index", value: .number(String(position)))) }
            fields.append(JSONMember(key: "description", value: .string(problem.description)))
            return .object(JSONObject(members: fields))
        })))
        return .object(JSONObject(members: members))
    }
}
