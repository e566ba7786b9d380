#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The zxing-cpp reader, loaded at run time from the `OpenHealthKitQRImages` library this package
/// builds (`libOpenHealthKitQRImages.so`).
///
/// Loading it late keeps zxing-cpp and stb_image out of every other build: a fresh machine runs
/// `swift run health demo` without `libzxing-dev` or `libstb-dev`, and only reading a QR image
/// asks for them, with the commands that install them.
struct QRReaderLibrary: Sendable {
    /// `int ohk_read_qr_codes(const char *path, char *out, unsigned long capacity)`.
    typealias ReadFunction = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UInt) -> Int32

    /// The C entry point, resolved once.
    let read: ReadFunction

    /// The library's file name on this platform.
    static let fileName: String = {
        #if os(macOS)
        "libOpenHealthKitQRImages.dylib"
        #else
        "libOpenHealthKitQRImages.so"
        #endif
    }()

    /// What to run to make QR images readable, for the error a person sees.
    static let installHint = "reading QR images needs zxing-cpp and stb_image: "
        + "apt-get install libzxing-dev libstb-dev, then swift build --product OpenHealthKitQRImages "
        + "(scripts/test.sh does both)"

    /// Where the library is looked for: only at `OPENHEALTHKIT_QR_LIBRARY` when that is set;
    /// otherwise beside the running executable (where `swift build` puts both), then on the
    /// loader's own search path.
    static func defaultCandidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let path = environment["OPENHEALTHKIT_QR_LIBRARY"], !path.isEmpty { return [path] }
        var candidates: [String] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(fileName).path)
        }
        candidates.append(fileName)
        return candidates
    }

    /// The process's reader, loaded on first use. A failure is remembered: it names what to install.
    static let shared: Result<QRReaderLibrary, QRImageReader.Failure> = load(candidates: defaultCandidates())

    /// Loads the first candidate that opens and exports the reader.
    /// - Returns: `.readerUnavailable` naming every candidate's loader error and what to install.
    static func load(candidates: [String]) -> Result<QRReaderLibrary, QRImageReader.Failure> {
        var reasons: [String] = []
        for candidate in candidates {
            // A path that names a folder but no file is not worth the loader's search.
            if candidate.contains("/") && !FileManager.default.fileExists(atPath: candidate) {
                reasons.append("\(candidate): no such file")
                continue
            }
            guard let handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? "\(candidate): cannot be loaded")
                continue
            }
            guard let symbol = dlsym(handle, "ohk_read_qr_codes") else {
                reasons.append("\(candidate): has no ohk_read_qr_codes")
                dlclose(handle)
                continue
            }
            // The handle stays open for the life of the process: the function lives in it.
            return .success(QRReaderLibrary(read: unsafeBitCast(symbol, to: ReadFunction.self)))
        }
        return .failure(.readerUnavailable(reason: installHint + " (" + reasons.joined(separator: "; ") + ")"))
    }
}
