import FHIRCore
import FhirBlocks
import Foundation
import HTTPTypes
import HTTPTestSupport
import Hummingbird
import NIOCore
import Synchronization
import Testing
import TestSupport

/// `health audit witness` beside a running `health serve`: a C2SP witness on 127.0.0.1 cosigns
/// the latest checkpoint, `GET /audit/checkpoint` carries the cosignature (and keeps serving that
/// checkpoint after more audited requests), and `health audit verify --witness-key` requires it; a witness that trusts another key refuses
/// (403) and the command exits 1.
@Suite(.serialized) struct AuditWitnessCommandTests {
    /// A C2SP `tlog-witness` of one log (`add-checkpoint` only), as the specification answers.
    final class Witness: Sendable {
        let key: NoteSigningKey
        let logKey: NoteVerifierKey
        let origin: String
        private let latest = Mutex<(size: Int, root: MerkleHash)>((0, .emptyTree))

        init(logKey: NoteVerifierKey, origin: String) throws {
            key = try NoteSigningKey.generate(name: "witness.test/cli")
            self.logKey = logKey
            self.origin = origin
        }

        func answer(_ body: [UInt8]) -> (Int, String) {
            guard let request = AddCheckpointRequest(body: body), let signed = try? SignedCheckpoint(text: request.checkpoint) else { return (400, "") }
            guard signed.checkpoint.origin == origin else { return (404, "") }
            guard (try? signed.verify(logKey)) != nil else { return (403, "") }
            let checkpoint = signed.checkpoint
            guard request.oldSize <= checkpoint.treeSize else { return (400, "") }
            let refusal: (Int, String)? = latest.withLock { latest in
                guard request.oldSize == latest.size else { return (409, "\(latest.size)\n") }
                if request.oldSize == 0 {
                    guard request.proof.isEmpty else { return (422, "") }
                } else if (try? MerkleTree.verifyConsistency(oldSize: request.oldSize, newSize: checkpoint.treeSize, oldRoot: latest.root,
                                                             newRoot: checkpoint.rootHash, proof: request.proof)) == nil {
                    return (422, "")
                }
                latest = (checkpoint.treeSize, checkpoint.rootHash)
                return nil
            }
            if let refusal { return refusal }
            guard let line = try? key.cosignatureLine(for: checkpoint, time: UInt64(max(1, Date().timeIntervalSince1970))) else { return (500, "") }
            return (200, line.line)
        }

        /// Serves it on 127.0.0.1 until `body` returns.
        func serve<Value: Sendable>(_ body: @Sendable (String) async throws -> Value) async throws -> Value {
            let router = Router(context: BasicRequestContext.self)
            router.post("add-checkpoint") { [self] request, _ -> Response in
                let (status, text) = answer(Array(buffer: try await request.body.collect(upTo: 1 << 20)))
                var headers = HTTPFields()
                headers[.contentType] = status == 409 ? "text/x.tlog.size" : "text/plain; charset=utf-8"
                return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
            }
            guard let application = await LoopbackApplication.start(router, label: "cli-witness") else {
                throw ServeCommandTests.TestFailure("the witness did not start")
            }
            return try await withTeardown({ await application.stop() }) {
                try await body(application.url)
            }
        }
    }

    @Test func witnessCosignsAndVerifyRequiresIt() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let server = try await ServeCommandTests.Server.start(runner)
        defer { server.process.terminate() }
        let identity = runner.folder.appendingPathComponent("w.json").path
        let wallet = try await runner.run(["wallet", "register", "--server", server.url, "--identity", identity, "--first-name", "Ada",
                                           "--birth-date", "1970-01-01"])
        #expect(wallet.status == 0, "\(wallet.error)")
        let keyDocument = ServeCommandTests.object(try await ServeCommandTests.send(.GET, server.url + "/audit/key").1)
        let vkey = try NoteVerifierKey(text: keyDocument["noteVerifierKey"]?.stringValue ?? "")
        let origin = keyDocument["origin"]?.stringValue ?? ""
        let database = runner.folder.appendingPathComponent("data").path
        // A checkpoint covering the registration (the server signs one when asked).
        #expect(try await ServeCommandTests.send(.GET, server.url + "/audit/checkpoint").0 == 200)

        let witness = try Witness(logKey: vkey, origin: origin)
        let witnessKey = witness.key.cosignerKey.text
        try await witness.serve { url in
            let cosigned = try await runner.run(["audit", "witness", "--witness", url, "--database", database, "--witness-key", witnessKey])
            #expect(cosigned.status == 0 && cosigned.output.contains("the witness cosigned the checkpoint of size"),
                    "\(cosigned.output)\(cosigned.error)")
        }
        let note = String(decoding: try await ServeCommandTests.send(.GET, server.url + "/audit/checkpoint").1, as: UTF8.self)
        #expect(note.contains("\n\u{2014} witness.test/cli "), "\(note)")
        let cosigned = try SignedCheckpoint(text: note).checkpoint

        // More audited requests: the server signs newer checkpoints, but GET /audit/checkpoint
        // keeps serving the cosigned one, and verify still finds the witness's cosignature.
        let second = runner.folder.appendingPathComponent("w2.json").path
        let another = try await runner.run(["wallet", "register", "--server", server.url, "--identity", second, "--first-name", "Grace",
                                            "--birth-date", "1971-01-01"])
        #expect(another.status == 0, "\(another.error)")
        let served = String(decoding: try await ServeCommandTests.send(.GET, server.url + "/audit/checkpoint").1, as: UTF8.self)
        #expect(try SignedCheckpoint(text: served).checkpoint == cosigned && served.contains("\n\u{2014} witness.test/cli "), "\(served)")
        let list = ServeCommandTests.object(try await ServeCommandTests.send(.GET, server.url + "/audit/checkpoints").1)
        let newest = list["checkpoints"]?.arrayValue?.last?.objectValue?["treeSize"]?.doubleValue.map { Int($0) } ?? 0
        #expect(newest > cosigned.treeSize, "\(list)")
        let verified = try await runner.run(["audit", "verify", "--server", server.url, "--witness-key", witnessKey])
        #expect(verified.status == 0 && verified.output.contains("cosigned by the witness witness.test/cli at size \(cosigned.treeSize)"),
                "\(verified.output)\(verified.error)")
        let stranger = try NoteSigningKey.generate(name: "witness.test/none").cosignerKey.text
        let missing = try await runner.run(["audit", "verify", "--server", server.url, "--witness-key", stranger])
        #expect(missing.status == 1 && missing.output.contains("no signed checkpoint carries a valid cosignature by the witness witness.test/none"),
                "\(missing.output)\(missing.error)")
        #expect(try await runner.run(["audit", "verify", "--server", server.url, "--witness-key", "not-a-key"]).status == 2)
        #expect(try await runner.run(["audit", "verify", "--server", server.url, "--witness-key", vkey.text]).status == 2)

        // A witness that trusts another log key refuses: nothing is kept, exit 1.
        let wrong = try Witness(logKey: try NoteSigningKey.generate(name: vkey.name).verifierKey, origin: origin)
        try await wrong.serve { url in
            let refused = try await runner.run(["audit", "witness", "--witness", url, "--database", database])
            #expect(refused.status == 1 && refused.error.contains("answered 403"), "\(refused.output)\(refused.error)")
        }
    }
}
