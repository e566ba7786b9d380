import ArgumentParser
import FhirBlocks
import FhirBlocksDeployment
import FhirBlocksServer
import FhirBlocksStore
import Foundation

/// `health audit witness --witness URL --database FILE|DIR|URL [--witness-key VKEY]`.
struct AuditWitnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "witness",
        abstract: "Have a witness cosign the audit log's latest checkpoint (C2SP tlog-witness add-checkpoint) and keep its cosignature.",
        discussion: """
            Run by the server's operator beside the server, on its database (named as health serve --database names it). \
            The latest checkpoint is sent with the consistency proof from the size the witness cosigned last; the \
            cosignature/v1 lines the witness returns are added to the stored checkpoint, which GET /audit/checkpoint \
            then serves, and keeps serving as the log grows until the next run: run it on a schedule. With --witness-key, \
            only lines that verify with that key are kept, and at least one must. \
            Exit status: 0 when cosigned, 1 when the witness refused, 2 on usage errors.
            """)

    @Option(help: ArgumentHelp("The witness's submission prefix (add-checkpoint is appended).", valueName: "URL"))
    var witness: String

    @Option(help: ArgumentHelp("The server's database: its SQLite file, its data folder, or a postgres:// URL.", valueName: "FILE|DIR|URL"))
    var database: String

    @Option(name: .customLong("witness-key"),
            help: ArgumentHelp("The witness's cosignature verifier key (name+id+base64, type 0x04).", valueName: "VKEY"))
    var witnessKey: String?

    func run() async throws {
        var key: NoteVerifierKey?
        if let witnessKey {
            guard let parsed = try? NoteVerifierKey(text: witnessKey), parsed.type == NoteVerifierKey.cosignatureType else {
                throw UsageError("--witness-key: not a cosignature verifier key (name+8 hex digits+base64 of 0x04 and an Ed25519 key)")
            }
            key = parsed
        }
        guard witness.hasPrefix("http://") || witness.hasPrefix("https://") else { throw UsageError("--witness: an http(s) URL") }
        let location: TrustStoreLocation
        do { location = try TrustStoreLocation(parsing: database) } catch { throw UsageError("--database: \(error)") }
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) { throw UsageError("\(path): no such file") }
        let store: any TrustStore
        do {
            store = try location.open()
        } catch {
            throw UsageError("cannot open the database: \(error)")
        }
        let outcome: Result<AuditWitnessing.Outcome, AuditWitnessing.Failure>
        do {
            outcome = .success(try await AuditWitnessing.cosignLatest(store: store, witnessURL: witness, witnessKey: key))
        } catch {
            outcome = .failure(error)
        }
        await store.close()
        switch outcome {
        case .success(let done):
            print("the witness cosigned the checkpoint of size \(done.treeSize) (it had cosigned size \(done.oldSize)); "
                  + "\(done.lines.count) cosignature line\(done.lines.count == 1 ? "" : "s") kept")
        case .failure(let failure):
            try? FileHandle.standardError.write(contentsOf: Data("error: \(failure)\n".utf8))
            throw ExitCode(1)
        }
    }
}
