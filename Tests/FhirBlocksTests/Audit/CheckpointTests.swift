import Testing
@testable import FhirBlocks

@Suite struct CheckpointTests {
    static let key = CsiSigningKey.generate()
    static let checkpoint = Checkpoint(origin: "fhirblocks.example/audit", treeSize: 3,
                                       rootHash: MerkleHash(hex: "36642e73c2540ab121e3a6bf9545b0a24982cd830eb13d3cd19de3ce6c021ec1") ?? .emptyTree,
                                       timestamp: AppendixA.now)

    @Test func textFormat() throws {
        let signed = try SignedCheckpoint.sign(Self.checkpoint, keyName: "fhirblocks.example", key: Self.key)
        let lines = signed.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "fhirblocks.example/audit")
        #expect(lines[1] == "3")
        #expect(lines[2] == "NmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=")
        #expect(lines[3] == "timestamp 2018-01-12T17:03:21.000Z")
        #expect(lines[4] == "")
        #expect(lines[5].hasPrefix("\u{2014} fhirblocks.example "))
        #expect(signed.text.hasSuffix("\n"))
    }

    @Test func signParseVerify() throws {
        let signed = try SignedCheckpoint.sign(Self.checkpoint, keyName: "fhirblocks.example", key: Self.key)
        let parsed = try SignedCheckpoint(text: signed.text)
        #expect(parsed == signed)
        try parsed.verify(keyName: "fhirblocks.example", publicKey: Self.key.publicKey)
        #expect(throws: CheckpointError.noValidSignature) { try parsed.verify(keyName: "fhirblocks.example", publicKey: CsiSigningKey.generate().publicKey) }
        #expect(throws: CheckpointError.noValidSignature) { try parsed.verify(keyName: "other", publicKey: Self.key.publicKey) }
        // A witness cosignature from an unknown key is ignored.
        let witness = try SignedCheckpoint.sign(Self.checkpoint, keyName: "witness.example", key: CsiSigningKey.generate())
        let cosigned = try SignedCheckpoint(text: signed.text + witness.signatures[0].line)
        try cosigned.verify(keyName: "fhirblocks.example", publicKey: Self.key.publicKey)
        #expect(cosigned.signatures.count == 2)
    }

    @Test func tamperedBodyFails() throws {
        let text = try SignedCheckpoint.sign(Self.checkpoint, keyName: "fhirblocks.example", key: Self.key).text
        for (from, to) in [("\n3\n", "\n4\n"), ("audit", "audiT"), ("17:03:21", "17:03:22"), ("NmQu", "NmQv")] {
            let tampered = text.replacingOccurrences(of: from, with: to)
            if let parsed = try? SignedCheckpoint(text: tampered) {
                #expect(throws: CheckpointError.noValidSignature) { try parsed.verify(keyName: "fhirblocks.example", publicKey: Self.key.publicKey) }
            }
        }
    }

    @Test func malformedNotesAreTypedErrors() {
        let cases: [(String, CheckpointError)] = [
            ("", .malformedNote),
            ("origin\n3\n", .malformedNote),
            ("origin\n03\nNmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\ntimestamp 2018-01-12T17:03:21.000Z\n\n\u{2014} k AAAAAAA=\n", .malformedBody(line: 2)),
            ("origin\n3\nNmQu\ntimestamp 2018-01-12T17:03:21.000Z\n\n\u{2014} k AAAAAAA=\n", .malformedBody(line: 3)),
            ("origin\n3\nNmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\n\n\u{2014} k AAAAAAA=\n", .malformedBody(line: 4)),
            ("origin\n3\nNmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\ntime 5\n\n\u{2014} k AAAAAAA=\n", .malformedBody(line: 4)),
            ("origin\n3\nNmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\ntimestamp 2018-01-12T17:03:21.000Z\n\n", .unsigned),
            ("origin\n3\nNmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\ntimestamp 2018-01-12T17:03:21.000Z\n\n- k AAAAAAA=\n", .malformedSignature(line: 6)),
            ("origin\n3\nNmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\ntimestamp 2018-01-12T17:03:21.000Z\n\n\u{2014} k AAAA\n", .malformedSignature(line: 6)),
            (String(repeating: "x", count: 70_000), .tooLong),
        ]
        for (text, error) in cases {
            #expect(throws: error) { try SignedCheckpoint(text: text) }
        }
        #expect(throws: CheckpointError.invalidKeyName) { try SignedCheckpoint.sign(Self.checkpoint, keyName: "bad name", key: Self.key) }
        #expect(throws: CheckpointError.invalidKeyName) { try SignedCheckpoint.sign(Self.checkpoint, keyName: "a+b", key: Self.key) }
    }

    @Test func keyIDIsBoundToNameAndKey() {
        let id = CheckpointSignature.keyID(name: "a", publicKey: Self.key.publicKey)
        #expect(id.count == 4)
        #expect(id != CheckpointSignature.keyID(name: "b", publicKey: Self.key.publicKey))
        #expect(id != CheckpointSignature.keyID(name: "a", publicKey: CsiSigningKey.generate().publicKey))
    }
}
