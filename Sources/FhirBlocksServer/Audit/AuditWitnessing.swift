import AsyncHTTPClient
import FhirBlocks
import FhirBlocksStore
import HTTPClientPolicy
import NIOCore

/// Has a witness cosign the audit log's latest checkpoint (C2SP `tlog-witness` `add-checkpoint`)
/// and keeps the cosignature lines it returns in the checkpoint's stored note, which
/// `GET /audit/checkpoint` then serves (`health audit witness`).
///
/// The request names the size the witness cosigned last: first 0 with no proof; when the witness
/// answers 409 with the size it holds, once more with that size and the consistency proof from it,
/// computed from the stored leaf hashes. The stored entries must give the checkpoint's root before
/// anything is sent.
public enum AuditWitnessing {
    /// The most signature lines a kept note carries (signed-note verifiers accept at least 16).
    public static let maximumSignatureLines = 16

    /// What a witness cosigned.
    public struct Outcome: Sendable, Hashable {
        /// The cosigned checkpoint's size.
        public var treeSize: Int
        /// The size the witness had cosigned before (the request's `old` line).
        public var oldSize: Int
        /// The cosignature lines kept.
        public var lines: [CheckpointSignature]
    }

    /// Why nothing was cosigned. The reason names sizes and statuses, never entries.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What went wrong.
        public var reason: String

        init(_ reason: String) { self.reason = reason }

        public var description: String { reason }
    }

    /// Sends the latest checkpoint of `store` to the witness at `witnessURL` (its submission
    /// prefix; `/add-checkpoint` is appended) and keeps the returned lines.
    /// - Parameters:
    ///   - store: the server's store (its latest checkpoint and leaf hashes; the note is rewritten).
    ///   - witnessURL: the witness's submission prefix.
    ///   - witnessKey: the witness's cosignature key (type 0x04); when given, only lines that
    ///     verify with it are kept and at least one must.
    /// - Throws: ``Failure``.
    public static func cosignLatest(store: any TrustStore, witnessURL: String, witnessKey: NoteVerifierKey?) async throws(Failure) -> Outcome {
        let stored: StoredCheckpoint?
        do { stored = try await store.latestCheckpoint() } catch { throw Failure("cannot read the latest checkpoint: \(error)") }
        guard let stored else { throw Failure("the log has no checkpoint yet") }
        let signed: SignedCheckpoint
        do { signed = try SignedCheckpoint(text: stored.note) } catch { throw Failure("the latest checkpoint is unreadable: \(error)") }
        let size = signed.checkpoint.treeSize
        let tree = try await leaves(of: store, upTo: size)
        guard (try? tree.rootHash(treeSize: size)) == signed.checkpoint.rootHash else {
            throw Failure("the stored entries do not give the root of the checkpoint of size \(size): run health audit verify")
        }
        let endpoint = (witnessURL.hasSuffix("/") ? String(witnessURL.dropLast()) : witnessURL) + "/add-checkpoint"
        var oldSize = 0
        var answer: [UInt8] = []
        attempts: for attempt in 0..<2 {
            guard oldSize <= size, let proof = try? tree.consistencyProof(oldSize: oldSize, newSize: size) else {
                throw Failure("the witness has cosigned size \(oldSize), beyond this log's latest checkpoint (size \(size))")
            }
            let request = AddCheckpointRequest(oldSize: oldSize, proof: proof, checkpoint: stored.note)
            let response = try await post(request.body, to: endpoint)
            switch response.status {
            case 200:
                answer = response.body
                break attempts
            case 409 where attempt == 0:
                let text = String(decoding: response.body, as: UTF8.self)
                guard text.hasSuffix("\n"), let held = Int(text.dropLast()), held >= 0 else {
                    throw Failure("the witness answered 409 without its size")
                }
                oldSize = held
            default:
                let first = String(decoding: response.body.prefix(200), as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
                throw Failure("the witness answered \(response.status)" + (first.isEmpty ? "" : ": \(first)"))
            }
        }
        var lines: [CheckpointSignature]
        do {
            lines = try SignedCheckpoint.signatureLines(String(decoding: answer, as: UTF8.self))
        } catch {
            throw Failure("the witness's answer is not signature lines: \(error)")
        }
        if let witnessKey {
            lines = lines.filter { line in
                (try? SignedCheckpoint(checkpoint: signed.checkpoint, signatures: [line]).cosignatureTime(by: witnessKey)) != nil
            }
            guard !lines.isEmpty else { throw Failure("the witness's answer has no valid cosignature by \(witnessKey.name)") }
        }
        // A witness's newer cosignature replaces its older one on the note.
        var kept = signed
        kept.signatures.removeAll { old in lines.contains { $0.keyName == old.keyName && $0.keyID == old.keyID } }
        kept = kept.adding(lines)
        guard kept.signatures.count <= maximumSignatureLines else {
            throw Failure("the checkpoint would carry more than \(maximumSignatureLines) signature lines")
        }
        var change = TrustChange()
        change.cosignedCheckpoints = [StoredCheckpoint(treeSize: stored.treeSize, note: kept.text)]
        do { _ = try await store.commit(change) } catch { throw Failure("cannot store the cosignatures: \(error)") }
        return Outcome(treeSize: size, oldSize: oldSize, lines: lines)
    }

    /// The stored leaf hashes of the first `size` entries.
    private static func leaves(of store: any TrustStore, upTo size: Int) async throws(Failure) -> MerkleSubtrees {
        var tree = MerkleSubtrees()
        while tree.count < size {
            let page: [AuditRecord]
            do { page = try await store.auditRecords(from: tree.count, limit: min(4096, size - tree.count)) } catch {
                throw Failure("cannot read the audit log: \(error)")
            }
            guard !page.isEmpty else { break }
            for record in page where record.index == tree.count { tree.append(record.leafHash) }
            if page.last?.index != tree.count - 1 { break }
        }
        return tree
    }

    private static func post(_ body: String, to url: String) async throws(Failure) -> HTTPClientPolicy.Response {
        let policy = HTTPClientPolicy(connectTimeout: .seconds(10), requestTimeout: .seconds(60), maximumResponseSize: 64 * 1024,
                                      maximumRedirects: 0, retries: 0)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        request.body = .bytes(ByteBuffer(string: body))
        do {
            return try await policy.execute(request)
        } catch {
            throw Failure("the witness could not be reached: \(error.description)")
        }
    }
}
