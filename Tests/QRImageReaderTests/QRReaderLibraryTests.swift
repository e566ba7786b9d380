import Foundation
@testable import QRImageReader
import Testing

@Suite("Loading zxing-cpp at run time")
struct QRReaderLibraryTests {
    @Test("The library built beside the tests loads and exports the reader")
    func loadsBesideTheExecutable() throws {
        // `swift build --build-tests` (scripts/test.sh) builds the OpenHealthKitQRImages product
        // beside the test bundle; zxing-cpp is then installed.
        #expect(throws: Never.self) { try QRImageReader.availability.get() }
    }

    @Test("A library that cannot be found is a typed failure that says what to install and build")
    func missingLibrary() throws {
        let missing = "/nonexistent/\(UUID().uuidString)/libOpenHealthKitQRImages.so"
        let result = QRReaderLibrary.load(candidates: [missing, "libNoSuchOpenHealthKitLibrary.so"])
        guard case .failure(.readerUnavailable(let reason)) = result else {
            Issue.record("a missing library loaded: \(result)")
            return
        }
        #expect(reason.contains("apt-get install libzxing-dev libstb-dev"))
        #expect(reason.contains("swift build --product OpenHealthKitQRImages"))
        #expect(reason.contains(missing))
        #expect(reason.contains("libNoSuchOpenHealthKitLibrary.so"))
    }

    @Test("A shared library without the reader's entry point is passed over")
    func libraryWithoutTheEntryPoint() throws {
        // libc is always loadable and has no `ohk_read_qr_codes`.
        let result = QRReaderLibrary.load(candidates: ["libc.so.6"])
        guard case .failure(.readerUnavailable(let reason)) = result else {
            Issue.record("libc was taken for the reader")
            return
        }
        #expect(reason.contains("libc.so.6: has no ohk_read_qr_codes"))
    }

    @Test("OPENHEALTHKIT_QR_LIBRARY is the only place looked when set; else the executable's folder, then the loader's path")
    func candidateOrder() throws {
        #expect(QRReaderLibrary.defaultCandidates(environment: ["OPENHEALTHKIT_QR_LIBRARY": "/opt/qr/lib.so"]) == ["/opt/qr/lib.so"])
        let candidates = QRReaderLibrary.defaultCandidates(environment: [:])
        let executableFolder = try #require(Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent())
        #expect(candidates == [executableFolder.appendingPathComponent(QRReaderLibrary.fileName).path, QRReaderLibrary.fileName])
    }
}
