import Foundation
import Testing

/// `health serve --tls-cert/--tls-key`: files that cannot serve are refused at start with the
/// option named (the working case is RecordsSyncCommandTests, which runs everything over TLS).
struct ServeTLSTests {
    @Test func unusableCertificateOrKeyIsRefusedAtStart() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let first = runner.folder.appendingPathComponent("first")
        let second = runner.folder.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: first, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        let one = try LoopbackCertificates.make(in: first)
        let other = try LoopbackCertificates.make(in: second)
        let data = ["serve", "--port", "0", "--data-dir", runner.folder.appendingPathComponent("data").path]

        let alone = try await runner.run(data + ["--tls-cert", one.certificateFile])
        #expect(alone.status == 2 && alone.error.contains("--tls-cert and --tls-key go together"), "\(alone.error)")
        let mismatched = try await runner.run(data + ["--tls-cert", one.certificateFile, "--tls-key", other.keyFile])
        #expect(mismatched.status == 2 && mismatched.error.contains("--tls-key does not match --tls-cert"), "\(mismatched.error)")
        let notPEM = try await runner.run(data + ["--tls-cert", one.keyFile + ".missing", "--tls-key", one.keyFile])
        #expect(notPEM.status == 2 && notPEM.error.contains("--tls-cert:"), "\(notPEM.error)")
    }
}
