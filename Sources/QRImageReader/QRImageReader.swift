import Foundation

/// Reads QR codes from image files (PNG, JPEG, BMP, GIF) with zxing-cpp from Debian
/// (`libzxing-dev`, images loaded by `libstb-dev`), through a small C++ shim with a C interface
/// that is loaded at run time (the `OpenHealthKitQRImages` library; see ``Failure/readerUnavailable(reason:)``).
///
/// This sits at the edge (it reads files); the `QRCode` module that draws codes stays pure.
public enum QRImageReader {
    /// Why an image could not be read.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file is missing or is not an image format the reader knows.
        case unreadableImage(path: String)
        /// The image holds more text than the reader accepts.
        case tooMuchText(path: String)
        /// The image's header claims more pixels than a QR code needs (16 megapixels, or a side
        /// over 10,000 pixels): it is refused without being decoded.
        case imageTooLarge(path: String)
        /// zxing-cpp is not installed, or the `OpenHealthKitQRImages` library that wraps it was not
        /// built: the reason says which, and what to install and build.
        case readerUnavailable(reason: String)

        public var description: String {
            switch self {
            case .unreadableImage(let path): "\(path) is not a readable PNG, JPEG, BMP or GIF image"
            case .tooMuchText(let path): "\(path) holds more QR text than can be read at once"
            case .imageTooLarge(let path): "\(path) is larger than any QR code image needs (over 16 megapixels or 10,000 pixels a side); not decoded"
            case .readerUnavailable(let reason): reason
            }
        }
    }

    /// Whether zxing-cpp can be loaded in this process; when it cannot, the reason and the
    /// commands that fix it.
    public static var availability: Result<Void, Failure> { QRReaderLibrary.shared.map { _ in () } }

    /// The most text read from one image: ample for SMART Health Cards (a version-22 code holds
    /// under 3 KB; chunked cards span a few codes).
    static let capacity = 256 * 1024

    /// The texts of every QR code in the image, in the order zxing-cpp finds them.
    /// - Returns: an empty array when the image holds no QR code.
    /// - Throws: ``Failure/readerUnavailable(reason:)`` when zxing-cpp cannot be loaded, before the
    ///   file is opened.
    public static func texts(inImageAt url: URL) throws(Failure) -> [String] {
        let library = try QRReaderLibrary.shared.get()
        var buffer = [CChar](repeating: 0, count: capacity)
        let count = url.path.withCString { path in
            buffer.withUnsafeMutableBufferPointer { library.read(path, $0.baseAddress, UInt($0.count)) }
        }
        switch count {
        case -2: throw .tooMuchText(path: url.path)
        case -3: throw .imageTooLarge(path: url.path)
        case ..<0: throw .unreadableImage(path: url.path)
        case 0: return []
        default:
            let length = buffer.firstIndex(of: 0) ?? buffer.count
            let text = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// Whether bytes look like an image file this reader handles (by magic number).
    ///
    /// Inlinable, so that a caller's concrete collection is read by specialized code: unspecialized,
    /// taking the prefix looks up the collection's associated types at run time, once per process
    /// (about 1 M instructions in a binary of twenty thousand protocol conformances, before
    /// `health shc verify` reads its first card).
    @inlinable
    public static func isImage(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(8))
        return head.starts(with: [0x89, 0x50, 0x4E, 0x47]) // PNG
            || head.starts(with: [0xFF, 0xD8, 0xFF]) // JPEG
            || head.starts(with: [0x42, 0x4D]) // BMP
            || head.starts(with: Array("GIF8".utf8))
    }
}
