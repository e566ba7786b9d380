@testable import HealthWebApp
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenHealthKit
import Synchronization
import Testing
import TestSupport

/// The Apple Health import's upload is streamed: `health ui` on 127.0.0.1 (a store in its own
/// folder, where the upload's temporary file goes) reads a generated 200 MB upload as it arrives,
/// writing the file while the upload is still being sent; past the limit it answers 413, a file
/// before a valid CSRF token 403, both without writing a byte; the temporary file is removed when
/// the job ends, or when the server stops.
@Suite("Streamed Apple Health import")
struct StreamedImportTests {
    /// A web application over a store in a new folder.
    static func makeApp(importLimit: Int = 4 << 30) throws -> (HealthWebApp, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-streamed-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"), role: .owner))
        try store.open()
        let webApp = try HealthWebApp(store: store, importLimit: importLimit, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        return (webApp, folder)
    }

    /// The upload files in a folder, with their sizes.
    static func uploadFiles(in folder: URL) -> [(url: URL, size: Int)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix(TemporaryUploads.prefix) }.sorted().map { name in
            let url = folder.appendingPathComponent(name)
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            return (url, size)
        }
    }

    /// Runs `webApp.run` on a free port for the time of `body`; then stops it (as SIGTERM does) and waits for it.
    static func withServer(_ webApp: HealthWebApp, _ body: @Sendable (StreamingClient) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = Task { try await webApp.run(port: 0) { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw WebTestFailure("the server did not start") }
        do {
            try await body(StreamingClient(port: port))
        } catch {
            server.cancel()
            _ = await server.result
            throw error
        }
        server.cancel()
        _ = await server.result
    }

    /// Opens a session: the cookie header and the form's CSRF token.
    static func session(_ webApp: HealthWebApp, _ client: StreamingClient) async throws -> (cookie: String, csrf: String) {
        let answer = try await client.send("GET", "/session?secret=\(webApp.session.startSecret)")
        guard let setCookie = answer.headers["set-cookie"], let pair = setCookie.split(separator: ";").first else {
            throw WebTestFailure("no session cookie: \(answer.status)")
        }
        let id = String(pair.dropFirst(WebSession.cookieName.count + 1))
        return (String(pair), webApp.session.csrfToken(for: id))
    }

    /// Blocks this (Dispatch) thread until `condition` holds; false after 300 s.
    static func waitFor(_ condition: () -> Bool) -> Bool {
        for _ in 0..<15_000 {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// A process's memory line of /proc/self/status in bytes (`VmHWM`, `VmRSS`).
    static func memory(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
    }

    @Test("A 200 MB upload (generated as it is sent) is written to its file while it is still being sent; its job removes the file")
    func bigUploadIsStreamed() async throws {
        let (webApp, folder) = try Self.makeApp()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The import waits behind this job: the whole file can be looked at before the importer reads it.
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let holder = webApp.jobs.start(title: "hold", total: 1, origin: "/browse", serial: true) { _ in
            for await _ in gate { break }
            return ("", nil)
        }
        let megabyte = 1 << 20
        let fileSize = 200 * megabyte
        var random = SplitMix64(seed: 200)
        let block = MultipartStreamTests.awkwardBytes(&random, count: megabyte, boundary: "----ohkTestBoundary7MA4YWxkTrZu0gW")
        try await Self.withServer(webApp) { client in
            let (cookie, csrf) = try await Self.session(webApp, client)
            let form = MultipartBody().field("csrf", csrf).file("export", filename: "export.zip", [])
            // The file part's content goes between its headers and the CRLF before the closing boundary.
            let head = Array(form.bytes.dropLast(2))
            let tail = Array("\r\n--\(form.boundary)--\r\n".utf8)
            let checkpoints = Mutex<[String]>([])
            let peakResident = Mutex(0)
            let residentBefore = Self.memory("VmRSS")
            // Resets VmHWM (Linux: 5 in clear_refs), so that it is this upload's peak.
            try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
            let answer = try await client.send("POST", "/import/apple-health",
                                               headers: [("Cookie", cookie), ("Content-Type", "multipart/form-data; boundary=\(form.boundary)")],
                                               contentLength: head.count + fileSize + tail.count) { sent in
                peakResident.withLock { $0 = max($0, Self.memory("VmRSS")) }
                if sent == 0 { return head }
                let fileSent = sent - head.count
                if fileSent == fileSize { return tail }
                if fileSent > fileSize { return nil }
                // Twice, the upload waits until the server has written most of what was sent.
                for (sentMark, writtenMark) in [(64 * megabyte, 32 * megabyte), (160 * megabyte, 128 * megabyte)] where fileSent == sentMark {
                    let written = Self.waitFor { Self.uploadFiles(in: folder).first.map { $0.size >= writtenMark } ?? false }
                    checkpoints.withLock { $0.append("\(sentMark >> 20) MB sent: \(written ? "" : "not ")\(writtenMark >> 20) MB written") }
                }
                return block
            }
            let peak = Self.memory("VmHWM")
            print("200 MB upload: resident before \(residentBefore >> 20) MB, highest seen while sending \(peakResident.withLock { $0 } >> 20) MB, "
                  + "VmHWM during it \(peak >> 20) MB (growth \((peak - residentBefore) >> 20) MB)")
            #expect(checkpoints.withLock { $0 } == ["64 MB sent: 32 MB written", "160 MB sent: 128 MB written"])
            if ProcessInfo.processInfo.environment["OPENHEALTHKIT_UPLOAD_MEMORY"] == "1" {
                #expect(peak - residentBefore < 64 * megabyte, "resident growth \((peak - residentBefore) >> 20) MB")
            }
            #expect(answer.status == 303, "\(answer.status) \(answer.body.prefix(300))")
            let location = try #require(answer.headers["location"])
            // The whole file, owner-only, waits for its job.
            let files = Self.uploadFiles(in: folder)
            #expect(files.count == 1 && files.first?.size == fileSize)
            if let file = files.first {
                let attributes = try FileManager.default.attributesOfItem(atPath: file.url.path)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
                let handle = try FileHandle(forReadingFrom: file.url)
                let first = try handle.read(upToCount: megabyte)
                try handle.seek(toOffset: UInt64(fileSize - megabyte))
                let last = try handle.read(upToCount: megabyte)
                try handle.close()
                #expect(first.map(Array.init) == block && last.map(Array.init) == block)
            }
            open.yield()
            open.finish()
            await webApp.jobs.waitUntilFinished(holder)
            await webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
            // Not an export: the job ended on its failure, and removed the file.
            let page = try await client.send("GET", location, headers: [("Cookie", cookie)])
            #expect(page.body.contains("export.zip was not imported"), "\(page.body.prefix(2_000))")
            #expect(Self.uploadFiles(in: folder).isEmpty && webApp.uploads.alive.isEmpty)
        }
    }

    /// 413 at once when the Content-Length says so, else when the limit is passed (the part
    /// written removed); 403 when the file comes before a valid CSRF token, nothing written.
    @Test("An upload over the limit is refused with 413, and a file before a valid CSRF token with 403, writing nothing")
    func refusedBeforeSpooling() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let webApp = try HealthWebApp(store: fixture.store, importLimit: 1 << 20, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        let application = Application(router: webApp.router())
        try await application.test(.router) { testClient in
            let client = WebClient(client: testClient, webApp: webApp)
            let cookie = try await client.startSession()
            let export = Array(AppleHealthImportPageTests.export.utf8)
            func post(_ body: MultipartBody, headers: HTTPFields = [:]) async throws -> WebAnswer {
                try await post(body.bytes, boundary: body.boundary, headers: headers)
            }
            func post(_ bytes: [UInt8], boundary: String, headers: HTTPFields = [:]) async throws -> WebAnswer {
                var fields = headers
                fields[.cookie] = cookie
                fields[.contentType] = "multipart/form-data; boundary=\(boundary)"
                let response = try await testClient.executeRequest(uri: "/import/apple-health", method: .post, headers: fields, body: ByteBuffer(bytes: bytes))
                return WebAnswer(status: response.status, headers: response.headers, body: String(buffer: response.body))
            }
            let good = MultipartBody().field("csrf", client.csrf(cookie))
            // Found too large while it is read: the part written is removed.
            let big = try await post(good.file("export", filename: "export.zip", [UInt8](repeating: 0x41, count: 2 << 20)).closed)
            #expect(big.status == .contentTooLarge)
            #expect(webApp.uploads.alive.isEmpty)
            let written = webApp.uploads.createdCount
            // The token comes after the file, is wrong, or is missing: nothing written.
            let late = try await post(MultipartBody().file("export", filename: "export.xml", export).field("csrf", client.csrf(cookie)).closed)
            let wrong = try await post(MultipartBody().field("csrf", "forged").file("export", filename: "export.xml", export).closed)
            let missing = try await post(MultipartBody().file("export", filename: "export.xml", export).closed)
            let noFile = try await post(MultipartBody().field("csrf", "forged").closed)
            for answer in [late, wrong, missing, noFile] {
                #expect(answer.status == .forbidden && answer.body.contains("This form has expired or did not come from this page"), "\(answer.body)")
            }
            #expect(webApp.uploads.createdCount == written && webApp.uploads.alive.isEmpty)
            // No session: 401 before anything.
            let anonymous = try await testClient.executeRequest(uri: "/import/apple-health", method: .post,
                                                                headers: [.contentType: "multipart/form-data; boundary=\(good.boundary)"],
                                                                body: ByteBuffer(bytes: good.file("export", filename: "e.xml", export).closed.bytes))
            #expect(anonymous.status == .unauthorized && webApp.uploads.createdCount == written)
            // A body that is not a form, and one that ends early: 400 in words, nothing kept.
            let cut = good.file("export", filename: "export.xml", export)
            let truncated = try await post(Array(cut.bytes.dropLast(40)), boundary: cut.boundary)
            #expect(truncated.status == .badRequest && truncated.body.contains("ended before its last part was complete"), "\(truncated.body)")
            #expect(webApp.uploads.alive.isEmpty)
            let page = try await client.send(.get, "/import/apple-health", cookie: cookie)
            #expect(page.body.contains("exports of up to 1 MB"))
        }
        // The default limit is 4 GB.
        let standard = try HealthWebApp(store: fixture.store)
        #expect(standard.importLimit == 4 << 30)
    }

    @Test("Stopping the server removes the file of an import still waiting to run")
    func shutdownRemovesUploads() async throws {
        let (webApp, folder) = try Self.makeApp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let holder = webApp.jobs.start(title: "hold", total: 1, origin: "/browse", serial: true) { _ in
            for await _ in gate { break }
            return ("", nil)
        }
        try await Self.withServer(webApp) { client in
            let (cookie, csrf) = try await Self.session(webApp, client)
            let body = MultipartBody().field("csrf", csrf).file("export", filename: "export.xml", Array(AppleHealthImportPageTests.export.utf8)).closed
            let pieces = Mutex(Array(stride(from: 0, to: body.bytes.count, by: 100).map { Array(body.bytes[$0..<min($0 + 100, body.bytes.count)]) }.reversed()))
            let answer = try await client.send("POST", "/import/apple-health",
                                               headers: [("Cookie", cookie), ("Content-Type", "multipart/form-data; boundary=\(body.boundary)")]) { _ in
                pieces.withLock { $0.popLast() }
            }
            #expect(answer.status == 303, "\(answer.body)")
            #expect(Self.uploadFiles(in: folder).map(\.size) == [AppleHealthImportPageTests.export.utf8.count])
        }
        // The server has stopped: the waiting import's file is gone.
        #expect(Self.uploadFiles(in: folder).isEmpty && webApp.uploads.alive.isEmpty)
        open.yield()
        open.finish()
        await webApp.jobs.waitUntilFinished(holder)
    }
}
