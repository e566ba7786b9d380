import Foundation
import HealthWebApp
import NIOCore
import OpenHealthKit
import Synchronization
import Testing

/// Uploads do not stack up in memory: the session middleware reads an upload's text fields
/// without copying its files, the files wait in temporary files until their job reads them, and
/// import jobs run one at a time however many uploads arrive together.
@Suite("Upload memory")
struct UploadMemoryTests {
    static func uploadFiles() -> [URL] {
        let folder = FileManager.default.temporaryDirectory
        return ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.lastPathComponent.hasPrefix("health-ui-upload-") }
    }

    @Test("Text fields are read without the files when asked; the files are kept otherwise")
    func fieldsOnly() throws {
        let body = MultipartBody().field("csrf", "token").file("files", filename: "a.json", Array(repeating: 0x41, count: 100_000)).closed
        let buffer = ByteBuffer(bytes: body.bytes)
        let fields = try MultipartForm(buffer, boundary: body.boundary, keepingFiles: false)
        #expect(fields["csrf"] == "token" && fields.files.isEmpty)
        let full = try MultipartForm(buffer, boundary: body.boundary)
        #expect(full["csrf"] == "token" && full.files.first?.bytes.count == 100_000)
    }

    @Test("Serial jobs run one at a time, in order; the others do not wait for them")
    func serialJobs() async throws {
        let jobs = WebJobs()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let log = Mutex<[String]>([])
        let first = jobs.start(title: "first", total: 1, origin: "/records", serial: true) { _ in
            log.withLock { $0.append("first started") }
            for await _ in gate { break }
            log.withLock { $0.append("first ended") }
            return ("", nil)
        }
        let second = jobs.start(title: "second", total: 1, origin: "/records", serial: true) { _ in
            log.withLock { $0.append("second started") }
            return ("", nil)
        }
        let other = jobs.start(title: "other", total: 1, origin: "/cards") { _ in ("", nil) }
        await jobs.waitUntilFinished(other)
        #expect(jobs.progress(of: second)?.isFinished == false)
        open.yield()
        open.finish()
        await jobs.waitUntilFinished(second)
        await jobs.waitUntilFinished(first)
        #expect(log.withLock { $0 } == ["first started", "first ended", "second started"])
    }

    @Test("Concurrent imports from the page all complete, and leave no temporary file behind")
    func concurrentImports() async throws {
        let fixture = try await WebTestFixture.make(days: 1, uploadLimit: 8 << 20)
        let before = Set(Self.uploadFiles())
        let locations = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        let resource = RecordsPageTests.observation.replacingOccurrences(of: "\"id\":\"", with: "\"id\":\"u\(index)-")
                        let body = MultipartBody().field("csrf", client.csrf(cookie))
                            .file("files", filename: "r\(index).json", Array(resource.utf8), type: "application/fhir+json").closed
                        let started = try await client.send(.post, "/records/import", cookie: cookie, multipart: body)
                        return started.headers[.location] ?? ""
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        for location in locations {
            #expect(location.hasPrefix("/jobs/"))
            await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
        }
        #expect(try await RecordsImportTests.records(in: fixture.store) == 6)
        // Other suites' uploads (tests run in parallel) may still be waiting for their jobs: wait for
        // them, bounded; ours were removed when their jobs read them.
        var left = Set(Self.uploadFiles()).subtracting(before)
        for _ in 0..<200 where !left.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            left = Set(Self.uploadFiles()).subtracting(before)
        }
        #expect(left.isEmpty)
    }
}
