@testable import FhirBlocks
import Testing
import TestSupport

/// The C2SP formats the audit log speaks: signed-note verifier keys and Ed25519 signatures,
/// `cosignature/v1` lines, tile paths and tiles (`tlog-tiles`), and `add-checkpoint` bodies
/// (`tlog-witness`), against the specifications' own examples where they give one.
@Suite struct TransparencyLogFormatTests {
    /// signed-note's example: this verifier key verifies this note.
    @Test func signedNoteSpecExampleVerifies() throws {
        let key = try NoteVerifierKey(text: "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k")
        #expect(key.name == "example.com/foo" && key.type == NoteVerifierKey.ed25519Type)
        #expect(key.text == "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k")
        let line = "\u{2014} example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"
        let parsed = try #require(try SignedCheckpoint.signatureLines(line).first)
        #expect(parsed.keyID == key.keyID)
        let message = Array("This is an example message.\n".utf8)
        #expect(key.isValidSignature(parsed.signature, for: message))
        #expect(!key.isValidSignature(parsed.signature, for: Array("This is an example message!\n".utf8)))
    }

    /// tlog-cosignature's example line: key ID, then the 8-byte time the spec's signed message
    /// shows (`time 1679315147`), then 64 bytes of Ed25519 signature.
    @Test func cosignatureSpecExampleCarriesItsTime() throws {
        let text = "\u{2014} witness.example.com/w1 "
            + "jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
        let line = try #require(try SignedCheckpoint.signatureLines(text).first)
        #expect(line.keyName == "witness.example.com/w1" && line.signature.count == 72)
        #expect(SignedCheckpoint.cosignatureTime(line) == 1_679_315_147)
        #expect(String(decoding: Cosignature.message(body: "o\n1\nr\n", time: 1_679_315_147), as: UTF8.self)
                    == "cosignature/v1\ntime 1679315147\no\n1\nr\n")
    }

    /// Witness answers and kept checkpoint bodies: random and mutated text never crashes, and
    /// what reads back writes the same text.
    @Test func signatureLinesAndBodiesSurviveRandomText() throws {
        let witness = try NoteSigningKey.generate(name: "witness.test/w1")
        let checkpoint = Checkpoint(origin: "log.test/audit", treeSize: 9, rootHash: MerkleHash.leaf([9]),
                                    timestamp: Timestamp(secondsSince1970: 1_800_000_000))
        let answer = try witness.cosignatureLine(for: checkpoint, time: 5).line
        #expect(try SignedCheckpoint.signatureLines(answer + answer).count == 2)
        #expect(try Checkpoint(body: checkpoint.body) == checkpoint)
        for bad in ["", "\n", "\u{2014} a\n", "\u{2014} a AAAA\n", "- a AAAAAAAA\n", String(answer.dropLast())] {
            #expect(throws: CheckpointError.self, "\(bad)") { try SignedCheckpoint.signatureLines(bad) }
        }
        var random = SplitMix64(seed: 5)
        for round in 0..<4000 {
            var bytes = Array((round % 2 == 0 ? answer : checkpoint.body).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let lines = try? SignedCheckpoint.signatureLines(text) { #expect(lines.map(\.line).joined() == text) }
            if let body = try? Checkpoint(body: text) { #expect(body.body == text) }
        }
    }

    @Test func verifierKeysRefuseWhatIsNotOne() throws {
        let good = try NoteSigningKey.generate(name: "log.test/a").verifierKey.text
        #expect(try NoteVerifierKey(text: good).text == good)
        let parts = good.split(separator: "+", maxSplits: 2).map(String.init)
        for bad in ["", "name", "a+b+c", "\(parts[0])+00000000+\(parts[2])", "bad name+\(parts[1])+\(parts[2])",
                    "\(parts[0])+\(parts[1])+\(parts[2].dropLast(4))", "\(parts[0])+\(parts[1])+AQ==", String(repeating: "a", count: 2000)] {
            #expect(throws: CheckpointError.self, "\(bad)") { try NoteVerifierKey(text: bad) }
        }
        var random = SplitMix64(seed: 38)
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<120, using: &random)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &random) }
            _ = try? NoteVerifierKey(text: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The audit key's note key is derived, so the same audit key gives the same note key.
    @Test func noteKeySignsAndCosignsAndRefusesTampering() throws {
        let audit = CsiSigningKey.generate()
        let noteKey = try NoteSigningKey(name: "log.test/audit", derivedFrom: audit)
        #expect(try NoteSigningKey(name: "log.test/audit", derivedFrom: audit).verifierKey == noteKey.verifierKey)
        #expect(try NoteSigningKey(name: "log.test/audit", derivedFrom: .generate()).verifierKey != noteKey.verifierKey)
        let checkpoint = Checkpoint(origin: "log.test/audit", treeSize: 3, rootHash: MerkleTree.rootHash(leaves: MerkleTreeTests.leaves(3)),
                                    timestamp: Timestamp(secondsSince1970: 1_800_000_000))
        var signed = try SignedCheckpoint.sign(checkpoint, keyName: "log.test/audit", key: audit)
        signed = signed.adding([try noteKey.signatureLine(for: checkpoint.body)])
        let reread = try SignedCheckpoint(text: signed.text)
        try reread.verify(noteKey.verifierKey)
        try reread.verify(keyName: "log.test/audit", publicKey: audit.publicKey)
        var altered = reread
        altered.checkpoint.treeSize = 4
        #expect(throws: CheckpointError.noValidSignature) { try altered.verify(noteKey.verifierKey) }

        let witness = try NoteSigningKey.generate(name: "witness.test/w1")
        let cosigned = reread.adding([try witness.cosignatureLine(for: checkpoint, time: 1_800_000_123)])
        #expect(try SignedCheckpoint(text: cosigned.text).cosignatureTime(by: witness.cosignerKey) == 1_800_000_123)
        // The cosigner key is not the note key (type 0x04, another key ID), and another witness has none.
        #expect(witness.cosignerKey.keyID != witness.verifierKey.keyID)
        #expect(throws: CheckpointError.noValidCosignature) { try cosigned.cosignatureTime(by: witness.verifierKey) }
        #expect(throws: CheckpointError.noValidCosignature) {
            try cosigned.cosignatureTime(by: try NoteSigningKey.generate(name: "witness.test/w1").cosignerKey)
        }
        var tampered = cosigned
        tampered.checkpoint.rootHash = MerkleHash.leaf([1])
        #expect(throws: CheckpointError.noValidCosignature) { try tampered.cosignatureTime(by: witness.cosignerKey) }
    }

    @Test func tilePathsAsTheSpecWritesThem() throws {
        #expect(TilePath(level: 0, index: 1_234_067)?.path == "0/x001/x234/067")
        #expect(TilePath(level: 2, index: 5, partialWidth: 17)?.path == "2/005.p/17")
        #expect(TilePath(level: 1, index: 1000)?.path == "1/x001/000")
        #expect(TilePath(path: "0/x001/x234/067") == TilePath(level: 0, index: 1_234_067))
        #expect(TilePath(path: "63/000.p/255") == TilePath(level: 63, index: 0, partialWidth: 255))
        for bad in ["", "0", "0/", "0/5", "0/0005", "00/000", "64/000", "0/x000/005", "0/001/002", "0/x001", "0/000.p/0", "0/000.p/256",
                    "0/000.p/01", "0/000.p", "0/000.p/", "-1/000", "0/+01", "0/x1a2/000", "0/000/.p/3", "entries/000"] {
            #expect(TilePath(path: bad) == nil, "\(bad)")
        }
        var random = SplitMix64(seed: 7)
        for _ in 0..<5000 {
            let level = Int.random(in: 0...63, using: &random)
            let bound = Int.random(in: 1...1_000_000_000_000, using: &random)
            let index = Int.random(in: 0..<bound, using: &random)
            let width: Int? = Bool.random(using: &random) ? Int.random(in: 1...255, using: &random) : nil
            let tile = try #require(TilePath(level: level, index: index, partialWidth: width))
            #expect(TilePath(path: tile.path) == tile)
        }
        // Random text over the path alphabet never crashes, and what parses is canonical.
        let alphabet = Array("0123456789x/.p".utf8)
        for _ in 0..<20000 {
            let length = Int.random(in: 0..<24, using: &random)
            var bytes: [UInt8] = []
            for _ in 0..<length { bytes.append(alphabet.randomElement(using: &random) ?? 0x30) }
            let text = String(decoding: bytes, as: UTF8.self)
            if let tile = TilePath(path: text) { #expect(tile.path == text) }
        }
    }

    /// tlog-tiles' example: a tree of 70,000 leaves has 273 full level-0 tiles and a partial one
    /// of 112, one full level-1 tile and a partial one of 17, and a level-2 tile of width 1; and
    /// each tile hash is the root of the leaves it spans.
    @Test func tilesOfTheSpecExampleTree() throws {
        let leaves = (0..<70_000).map { MerkleHash.leaf(Array("leaf \($0)".utf8)) }
        let tree = MerkleSubtrees(leaves: leaves)
        func tile(_ level: Int, _ index: Int, _ width: Int? = nil) -> [MerkleHash]? {
            TilePath(level: level, index: index, partialWidth: width).flatMap(tree.hashes(of:))
        }
        #expect(tile(0, 272)?.count == 256 && tile(0, 273) == nil && tile(0, 273, 112)?.count == 112 && tile(0, 273, 113) == nil)
        #expect(tile(1, 0)?.count == 256 && tile(1, 1) == nil && tile(1, 1, 17)?.count == 17 && tile(1, 1, 18) == nil)
        #expect(tile(2, 0) == nil && tile(2, 0, 1)?.count == 1 && tile(2, 0, 2) == nil && tile(3, 0, 1) == nil)
        #expect(tile(0, 0)?.first == leaves[0] && tile(0, 273, 112)?.last == leaves[69_999])
        #expect(tile(1, 1, 17)?[3] == MerkleTree.rootHash(leaves: leaves[(256 + 3) * 256..<(256 + 4) * 256]))
        #expect(tile(2, 0, 1)?.first == MerkleTree.rootHash(leaves: leaves[0..<65_536]))
        // A partial tile is a prefix of the full one, so its content never changes.
        #expect(tile(0, 5, 9) == Array(try #require(tile(0, 5)).prefix(9)))
    }

    /// tlog-witness's example request body reads back as written, and malformed ones are refused.
    @Test func addCheckpointBodies() throws {
        let checkpoint = """
            example.com/behind-the-sofa
            20852163
            CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=

            \u{2014} example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=

            """
        let body = """
            old 20852014
            PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=
            jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=
            5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=
            /6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=


            """ + checkpoint
        let request = try #require(AddCheckpointRequest(body: Array(body.utf8)))
        #expect(request.oldSize == 20_852_014 && request.proof.count == 4 && request.checkpoint == checkpoint)
        #expect(request.body == body)
        #expect(request.proof[0].base64 == "PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=")
        for bad in ["", "old 1\n", "old 01\n\nx", "old -1\n\nx", "olds 1\n\nx", "old 1\nnot base64\n\nx", "old 1\nAAAA\n\nx", "old 1\n\n"] {
            #expect(AddCheckpointRequest(body: Array(bad.utf8)) == nil, "\(bad)")
        }
        let tooMany = "old 1\n" + String(repeating: request.proof[0].base64 + "\n", count: 64) + "\n" + checkpoint
        #expect(AddCheckpointRequest(body: Array(tooMany.utf8)) == nil)
        var random = SplitMix64(seed: 63)
        for _ in 0..<3000 {
            var bytes = Array(body.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let parsed = AddCheckpointRequest(body: bytes) { #expect(parsed.proof.count <= 63) }
        }
    }
}
