import Foundation
import Testing

@Suite("health store device-keys, add --sign-with, query --verify-signatures")
struct StoreDeviceKeysCommandTests {
    @Test("A signed sample verifies; a copied signature on another value is refused with exit status 1")
    func signAndVerify() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let keyFile = runner.folder.appendingPathComponent("meter.key.pem").path
        let generated = try await runner.run(["store", "device-keys", "generate", "--out", keyFile])
        #expect(generated.status == 0, "\(generated.error)")
        #expect(generated.output.contains("BEGIN PUBLIC KEY"))
        let permissions = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        // Never over an existing key.
        #expect(try await runner.run(["store", "device-keys", "generate", "--out", keyFile]).status == 2)

        let publicFile = runner.folder.appendingPathComponent("meter.pub.pem")
        try Data(generated.output.utf8).write(to: publicFile)
        let added = try await runner.run(["store", "device-keys", "add", publicFile.path, "--name", "Glucose meter"])
        #expect(added.status == 0, "\(added.error)")
        let listed = try await runner.run(["store", "device-keys", "list"])
        #expect(listed.output.contains("Glucose meter"))

        let saved = try await runner.run(["store", "add", "--type", "bloodGlucose", "--value", "97", "--unit", "mg/dL",
                                          "--start", "2026-11-20T08:00:00Z", "--sign-with", keyFile])
        #expect(saved.status == 0, "\(saved.error)")
        let query = try await runner.run(["store", "query", "--type", "bloodGlucose", "--verify-signatures"])
        #expect(query.status == 0, "\(query.error)")
        #expect(query.output.contains("  valid  key "))

        // The same signature on a changed value: the verdict names the field, the status is 1.
        let json = try await runner.run(["store", "query", "--type", "bloodGlucose", "--json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let signature = try #require((objects.first?["metadata"] as? [String: Any])?["HKDigitalSignature"] as? String)
        let copied = try await runner.run(["store", "add", "--type", "bloodGlucose", "--value", "140", "--unit", "mg/dL",
                                           "--start", "2026-11-20T08:00:00Z", "--metadata", "HKDigitalSignature=\(signature)"])
        #expect(copied.status == 0, "\(copied.error)")
        let refused = try await runner.run(["store", "query", "--type", "bloodGlucose", "--verify-signatures", "--json"])
        #expect(refused.status == 1)
        let verdicts = try #require(try JSONSerialization.jsonObject(with: Data(refused.output.utf8)) as? [[String: Any]])
        #expect(Set(verdicts.compactMap { $0["signature"] as? String }) == ["valid", "content-mismatch"])

        // Removing the key: its signatures come from an unknown key.
        let identifier = try #require(listed.output.split(separator: " ").first.map(String.init))
        #expect(try await runner.run(["store", "device-keys", "remove", identifier]).status == 0)
        #expect(try await runner.run(["store", "device-keys", "remove", identifier]).status == 1)
        let unknown = try await runner.run(["store", "query", "--type", "bloodGlucose", "--verify-signatures"])
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("unknown-key"))
    }

    @Test("Unreadable key files are usage errors; a file that is not a public key is refused")
    func badKeyFiles() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let missing = runner.folder.appendingPathComponent("missing.pem").path
        #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "1", "--sign-with", missing]).status == 2)
        #expect(try await runner.run(["store", "device-keys", "add", missing, "--name", "x"]).status == 2)
        let text = runner.folder.appendingPathComponent("text.pem")
        try Data("hello".utf8).write(to: text)
        #expect(try await runner.run(["store", "device-keys", "add", text.path, "--name", "x"]).status == 1)
        #expect(try await runner.run(["store", "device-keys", "remove", "not-hex"]).status == 2)
    }
}
