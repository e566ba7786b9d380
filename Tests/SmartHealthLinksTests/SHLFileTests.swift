import CommonSupport
import ExactJSON
import Foundation
import Testing
import TestSupport
@testable import SmartHealthLinks

/// The links' encrypted files and manifests: the public examples, round trips, refusals, fuzzing.
struct SHLFileTests {
    static func example(_ name: String) throws -> JSONValue {
        try JSONParser.parse(Array(Data(contentsOf: TestData.shlinkVectors.appendingPathComponent("shl-examples/\(name).json"))))
    }

    static let examples = ["ERn18l4lL3_5yPXMSzx3ZejyMM_XIeWeseXa3DXsJD0", "jvb42XYZTjY2BTZ2mcL6nozbTFT8Vs5G2_I-_IuxCZo"]

    @Test(arguments: examples)
    func theExamplesFilesDecryptToHealthCards(name: String) throws {
        let example = try Self.example(name)
        let link = try SHLink.parse(try #require(example["link"]?.stringValue))
        #expect(link.url == example["payload"]?["url"]?.stringValue)
        let files = try #require(example["jweFiles"]?.arrayValue)
        #expect(!files.isEmpty)
        for file in files {
            let decrypted = try SHLFile.decrypt(try #require(file.stringValue), key: link.key)
            let content = try JSONParser.parse(decrypted.content)
            #expect(content["verifiableCredential"]?.arrayValue?.first?.stringValue?.split(separator: ".").count == 3)
        }
    }

    @Test func theManifestVectorsRead() throws {
        let manifest = try SHLManifest(json: Array(try SHLinkTests.vector("shlink-manifest.txt").utf8))
        #expect(manifest.files.count == 2)
        #expect(manifest.files.allSatisfy { $0.contentType == SHLContentType.smartHealthCard })
        guard case .location(let url) = manifest.files[1].source else { Issue.record("not a location"); return }
        #expect(url == "http://localhost:8090/shl/TqNMSQQ-QoiRJoVBJOFtn9UKARE4ceJbxHb7mdWYar4")
        #expect(try SHLManifest(json: manifest.json) == manifest)
    }

    @Test(arguments: [false, true])
    func filesRoundTripWithAFreshIVEachTime(compress: Bool) throws {
        let key = SHLink.newKey()
        let content = Array(String(repeating: #"{"resourceType":"Observation","status":"final"}"#, count: 40).utf8)
        let first = try SHLFile.encrypt(content, contentType: SHLContentType.fhirJSON, key: key, compress: compress)
        let second = try SHLFile.encrypt(content, contentType: SHLContentType.fhirJSON, key: key, compress: compress)
        #expect(first.split(separator: ".")[2] != second.split(separator: ".")[2])
        let decrypted = try SHLFile.decrypt(first, key: key)
        #expect(decrypted.content == content)
        #expect(decrypted.contentType == SHLContentType.fhirJSON)
        let header = try JSONParser.parse(try Base64URL.decode(String(first.split(separator: ".")[0])))
        #expect(header["zip"]?.stringValue == (compress ? "DEF" : nil))
        if compress { #expect(first.utf8.count < content.count) }
    }

    @Test func alteredForeignAndForeignAlgorithmFilesAreRefused() throws {
        let key = SHLink.newKey()
        let jwe = try SHLFile.encrypt(Array("hello".utf8), contentType: "text/plain", key: key)
        var parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // Another key, an altered ciphertext, an altered header (authenticated), another algorithm.
        #expect(throws: SHLinkError.doesNotDecrypt) { try SHLFile.decrypt(jwe, key: SHLink.newKey()) }
        var altered = parts
        var ciphertext = try Base64URL.decode(altered[3])
        ciphertext[0] ^= 1
        altered[3] = Base64URL.encode(ciphertext)
        #expect(throws: SHLinkError.doesNotDecrypt) { try SHLFile.decrypt(altered.joined(separator: "."), key: key) }
        altered = parts
        altered[0] = Base64URL.encode(Array(#"{"alg":"dir","enc":"A256GCM","cty":"text/html"}"#.utf8))
        #expect(throws: SHLinkError.doesNotDecrypt) { try SHLFile.decrypt(altered.joined(separator: "."), key: key) }
        for (alg, enc) in [("A256KW", "A256GCM"), ("dir", "A128GCM"), ("dir", "A256CBC-HS512"), ("none", "A256GCM")] {
            altered = parts
            altered[0] = Base64URL.encode(Array(#"{"alg":"\#(alg)","enc":"\#(enc)"}"#.utf8))
            #expect(throws: SHLinkError.unsupportedAlgorithm(alg: alg, enc: enc)) { try SHLFile.decrypt(altered.joined(separator: "."), key: key) }
        }
        altered = parts
        altered[0] = Base64URL.encode(Array(#"{"alg":"dir","enc":"A256GCM","crit":["x"],"x":1}"#.utf8))
        #expect(throws: SHLinkError.self) { try SHLFile.decrypt(altered.joined(separator: "."), key: key) }
        parts.removeLast()
        #expect(throws: SHLinkError.badFile("a JWE in compact form has 5 parts separated by dots; this has 4")) {
            try SHLFile.decrypt(parts.joined(separator: "."), key: key)
        }
    }

    @Test func aZipBombStopsAtTheLimit() throws {
        let key = SHLink.newKey()
        let bomb = try SHLFile.encrypt([UInt8](repeating: 0x20, count: 50_000_000), contentType: "application/fhir+json", key: key, compress: true)
        #expect(bomb.utf8.count < 200_000)
        #expect(throws: SHLinkError.badCompression("would be larger than \(SHLFile.defaultMaximumSize) bytes")) {
            try SHLFile.decrypt(bomb, key: key)
        }
    }

    static let manifestRefusals: [(String, String)] = [
        ("[]", "it has no \"files\" list"),
        (#"{"files":[{"location":"https://a.example/f"}]}"#, "file 1 has no \"contentType\""),
        (#"{"files":[{"contentType":"application/fhir+json"}]}"#, "file 1 has neither \"location\" nor \"embedded\""),
        (#"{"files":[{"contentType":"x","location":"https://a.example/f","embedded":"a.b.c.d.e"}]}"#, "file 1 has both \"location\" and \"embedded\""),
        (#"{"files":[{"contentType":"x","location":"file:///etc/passwd"}]}"#, "a file's location is not a web address"),
        (#"{"files":[{"contentType":"x","location":"http://evil.example/f"}]}"#, "a file's location uses http:, not https:"),
    ]

    @Test(arguments: manifestRefusals)
    func badManifestsAreRefused(json: String, reason: String) {
        #expect(throws: SHLinkError.badManifest(reason)) { try SHLManifest(json: Array(json.utf8)) }
    }

    @Test func manifestRequestsReadAsAServerDoes() throws {
        let request = SHLManifestRequest(recipient: "Dr. Ana Díaz", passcode: "1234", embeddedLengthMax: 10_000)
        #expect(try SHLManifestRequest(json: request.json) == request)
        #expect(try SHLManifestRequest(json: Array(#"{"recipient":"x","extra":[1]}"#.utf8)) == SHLManifestRequest(recipient: "x"))
        for bad in [#"{}"#, #"{"recipient":""}"#, #"{"recipient":3}"#, #"{"recipient":"x","embeddedLengthMax":-1}"#,
                    #"{"recipient":"x","embeddedLengthMax":1.5}"#, #"{"recipient":"x","passcode":12}"#, "not json"] {
            #expect(throws: SHLinkError.self) { try SHLManifestRequest(json: Array(bad.utf8)) }
        }
        #expect(SHLPasscodeRefusal(json: SHLPasscodeRefusal(remainingAttempts: 3).json)?.remainingAttempts == 3)
        #expect(SHLPasscodeRefusal(json: Array("{}".utf8)) == nil)
    }

    /// Fuzz: mutated files never crash the reader.
    @Test func mutatedFilesAreReadOrRefused() throws {
        var random = SplitMix64(seed: 0x5411_0003)
        let key = SHLink.newKey()
        let seed = Array(try SHLFile.encrypt(Array(#"{"resourceType":"Bundle"}"#.utf8), contentType: "application/fhir+json", key: key, compress: true).utf8)
        for _ in 0..<20_000 {
            var bytes = seed
            for _ in 0...random.below(3) {
                switch random.below(3) {
                case 0: bytes[random.below(bytes.count)] = UInt8(random.below(256))
                case 1: bytes.remove(at: random.below(bytes.count))
                default: bytes.insert(UInt8(ascii: "."), at: random.below(bytes.count + 1))
                }
                if bytes.isEmpty { bytes = seed }
            }
            if let file = try? SHLFile.decrypt(String(decoding: bytes, as: UTF8.self), key: key) {
                #expect(file.content == Array(#"{"resourceType":"Bundle"}"#.utf8))
            }
        }
    }
}

/// jwcrypto (PyPI), an implementation we did not write, reads our files and writes files we read.
@Suite(.enabled(if: PythonPeer.python != nil, "set OPENHEALTHKIT_PEERS_VENV to a Python venv with jwcrypto (scripts/test.sh makes it)"))
struct SHLFilePeerTests {
    static let script = TestData.repositoryRoot.appendingPathComponent("scripts/shl-jwe-peer.py")

    @Test(arguments: [false, true])
    func jwcryptoDecryptsOurFilesAndWeDecryptItsFiles(compress: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shl-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = SHLink.newKey()
        let content = Array(String(repeating: #"{"resourceType":"Patient","name":[{"family":"Díaz"}]}"#, count: 30).utf8)
        let ours = folder.appendingPathComponent("ours.jwe"), plain = folder.appendingPathComponent("plain.json")
        try Data(try SHLFile.encrypt(content, contentType: "application/fhir+json", key: key, compress: compress).utf8).write(to: ours)
        let decrypted = try PythonPeer.run(Self.script, ["decrypt", Base64URL.encode(key), ours.path])
        #expect(decrypted.status == 0)
        #expect(decrypted.output == content)
        // A file for another key is refused by the peer too: the check above can fail.
        #expect(try PythonPeer.run(Self.script, ["decrypt", Base64URL.encode(SHLink.newKey()), ours.path]).status == 1)

        try Data(content).write(to: plain)
        let theirs = try PythonPeer.run(Self.script, ["encrypt", Base64URL.encode(key), "application/fhir+json", compress ? "DEF" : "none", plain.path])
        #expect(theirs.status == 0)
        let file = try SHLFile.decrypt(String(decoding: theirs.output, as: UTF8.self), key: key)
        #expect(file.content == content)
        #expect(file.contentType == "application/fhir+json")
    }
}
