import FhirBlocks
import Foundation
import HTTPTypes
import HTTPTestSupport
import Hummingbird
import NIOCore
import Synchronization

/// A C2SP `tlog-witness` for one log on 127.0.0.1 (a free port), for the witnessing tests: it
/// answers `POST /add-checkpoint` as the specification says (400 malformed or old size above the
/// checkpoint's, 404 unknown origin, 403 no valid signature by the log's Ed25519 key, 409 with the
/// size it holds as `text/x.tlog.size`, 422 a proof that does not verify or a proof with old size 0)
/// and cosigns with a `cosignature/v1` line, keeping the latest size and root it cosigned.
final class TestWitness: Sendable {
    let key: NoteSigningKey
    let logKey: NoteVerifierKey
    let origin: String
    let port: Int
    private let application: LoopbackApplication
    private let latest: Mutex<(size: Int, root: MerkleHash)>
    /// Every status it answered, in order.
    private let statuses = Mutex<[Int]>([])

    var url: String { "http://127.0.0.1:\(port)" }
    var answered: [Int] { statuses.withLock { $0 } }

    private init(key: NoteSigningKey, logKey: NoteVerifierKey, origin: String, application: LoopbackApplication,
                 start: (size: Int, root: MerkleHash)) {
        self.key = key
        self.logKey = logKey
        self.origin = origin
        self.port = application.port
        self.application = application
        self.latest = Mutex(start)
    }

    /// A witness of the log `origin` signed by `logKey`, starting from the empty tree (or from
    /// `start`, a state it is told it cosigned before).
    static func start(logKey: NoteVerifierKey, origin: String, start: (size: Int, root: MerkleHash) = (0, .emptyTree)) async throws -> TestWitness {
        let key = try NoteSigningKey.generate(name: "witness.test/w1")
        let state = Box()
        let router = Router(context: BasicRequestContext.self)
        router.post("add-checkpoint") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            guard let witness = state.witness else { return Response(status: .serviceUnavailable) }
            let (status, contentType, text) = witness.answer(Array(buffer: body))
            witness.statuses.withLock { $0.append(status) }
            var headers = HTTPFields()
            headers[.contentType] = contentType
            return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        guard let application = await LoopbackApplication.start(router, label: "test-witness") else {
            throw TestSkip("the test witness did not start")
        }
        let witness = TestWitness(key: key, logKey: logKey, origin: origin, application: application, start: start)
        state.value.withLock { $0 = witness }
        return witness
    }

    func stop() async {
        await application.stop()
    }

    /// The size and root it cosigned last.
    var cosigned: (size: Int, root: MerkleHash) { latest.withLock { $0 } }

    /// The answer to an `add-checkpoint` body: status, content type, body.
    func answer(_ body: [UInt8]) -> (Int, String, String) {
        let text = "text/plain; charset=utf-8"
        guard let request = AddCheckpointRequest(body: body), let signed = try? SignedCheckpoint(text: request.checkpoint) else {
            return (400, text, "malformed request\n")
        }
        guard signed.checkpoint.origin == origin else { return (404, text, "unknown log\n") }
        guard (try? signed.verify(logKey)) != nil else { return (403, text, "no valid signature by the log's key\n") }
        let checkpoint = signed.checkpoint
        guard request.oldSize <= checkpoint.treeSize else { return (400, text, "old size above the checkpoint's\n") }
        // The check and the update are one critical section (the specification's race).
        let outcome: (Int, String, String)? = latest.withLock { latest in
            guard request.oldSize == latest.size else { return (409, "text/x.tlog.size", "\(latest.size)\n") }
            if request.oldSize == 0 {
                guard request.proof.isEmpty else { return (422, text, "a proof from size 0\n") }
            } else if request.oldSize == checkpoint.treeSize {
                guard request.proof.isEmpty, latest.root == checkpoint.rootHash else { return (422, text, "another root at the same size\n") }
            } else {
                do {
                    try MerkleTree.verifyConsistency(oldSize: request.oldSize, newSize: checkpoint.treeSize, oldRoot: latest.root,
                                                     newRoot: checkpoint.rootHash, proof: request.proof)
                } catch {
                    return (422, text, "the consistency proof does not verify\n")
                }
            }
            latest = (checkpoint.treeSize, checkpoint.rootHash)
            return nil
        }
        if let outcome { return outcome }
        let time = UInt64(max(1, Date().timeIntervalSince1970))
        guard let line = try? key.cosignatureLine(for: checkpoint, time: time) else { return (500, text, "cannot sign\n") }
        return (200, text, line.line)
    }

    /// Lets the route reach the witness made after it.
    private final class Box: Sendable {
        let value = Mutex<TestWitness?>(nil)
        var witness: TestWitness? { value.withLock { $0 } }
    }
}
