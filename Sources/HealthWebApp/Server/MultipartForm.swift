import Foundation
import MultipartKit
import NIOCore

/// Why a `multipart/form-data` body could not be read. The messages name no uploaded content.
public enum MultipartFormError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `Content-Type` has no usable `boundary` parameter (missing, empty or over 70 characters).
    case missingBoundary
    /// The body breaks the multipart syntax (a bad header line, a bad boundary).
    case malformed
    /// The body ends inside a part, before the closing boundary.
    case truncated
    /// A part has no `Content-Disposition: form-data; name="…"`.
    case unnamedPart
    /// More parts than ``MultipartForm/maximumParts``.
    case tooManyParts

    public var description: String {
        switch self {
        case .missingBoundary: "the upload's Content-Type names no multipart boundary"
        case .malformed: "the upload is not a well-formed multipart form"
        case .truncated: "the upload ended before its last part was complete"
        case .unnamedPart: "a part of the upload has no form field name"
        case .tooManyParts: "the upload has more than \(MultipartForm.maximumParts) parts"
        }
    }
}

/// A `multipart/form-data` body (what the page's upload forms send), parsed by MultipartKit's
/// `MultipartParser`: its text fields and its files. The body was already size-limited by the
/// session middleware.
public struct MultipartForm: Sendable {
    /// One uploaded file.
    public struct File: Sendable, Hashable {
        /// The form field it came in.
        public var field: String
        /// The file name the browser sent (its last path component), or "upload".
        public var filename: String
        /// Its bytes.
        public var bytes: [UInt8]
    }

    /// The most parts one form may have.
    public static let maximumParts = 1_000

    /// The text fields by name (a repeated name keeps its first value).
    public private(set) var fields: [String: String] = [:]
    /// The files, in order. A file input left empty (no file name, no bytes) is not listed.
    public private(set) var files: [File] = []

    /// The `boundary` parameter of a `multipart/form-data` Content-Type, or nil when the type is
    /// not that (or names no usable boundary).
    public static func boundary(contentType: String) -> String? {
        let parameters = HeaderParameters(contentType)
        guard parameters.value.lowercased() == "multipart/form-data", let boundary = parameters["boundary"],
              !boundary.isEmpty, boundary.utf8.count <= 70 else { return nil }
        return boundary
    }

    /// Parses a body sent with `boundary`.
    /// - Parameters:
    ///   - body: the request body, whole.
    ///   - boundary: the Content-Type's `boundary` (``boundary(contentType:)``).
    ///   - keepingFiles: false reads the text fields only: file parts are checked but their
    ///     bytes are not copied, and ``files`` stays empty (what the session middleware needs
    ///     to find the CSRF token of an upload without a second copy of it).
    public init(_ body: ByteBuffer, boundary: String, keepingFiles: Bool = true) throws(MultipartFormError) {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else { throw .missingBoundary }
        // MultipartKit 4.7.1 traps on a header name byte over 0x7F (it indexes a 128-entry
        // table): such bodies are refused before the parser sees them.
        guard Self.headerNamesAreASCII(Array(body.readableBytesView), boundary: Array("--\(boundary)".utf8)) else { throw .malformed }
        let collector = PartCollector(keepingFiles: keepingFiles)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in collector.headers.append((name, value)) }
        parser.onBody = { buffer in collector.append(buffer) }
        parser.onPartComplete = { collector.complete() }
        do {
            try parser.execute(body)
        } catch {
            throw .malformed
        }
        guard collector.headers.isEmpty, collector.body.isEmpty else { throw .truncated }
        guard collector.parts.count <= Self.maximumParts else { throw .tooManyParts }
        for part in collector.parts {
            guard let disposition = part.headers.first(where: { $0.0.lowercased() == "content-disposition" })?.1 else { throw .unnamedPart }
            let parameters = HeaderParameters(disposition)
            guard parameters.value.lowercased() == "form-data", let name = parameters["name"], !name.isEmpty else { throw .unnamedPart }
            if let filename = parameters["filename"] {
                guard keepingFiles, !(filename.isEmpty && part.body.isEmpty) else { continue }
                let last = filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
                files.append(File(field: name, filename: last.isEmpty ? "upload" : last, bytes: part.body))
            } else if fields[name] == nil {
                fields[name] = String(decoding: part.body, as: UTF8.self)
            }
        }
    }

    /// The value of a text field.
    public subscript(_ name: String) -> String? { fields[name] }

    /// The files of one field.
    public func files(named field: String) -> [File] { files.filter { $0.field == field } }

    /// Whether every header line after every `--boundary` (up to the blank line that ends the
    /// headers) has an ASCII name. Looks at more than the parser will (any `--boundary`), never less.
    static func headerNamesAreASCII(_ bytes: [UInt8], boundary: [UInt8]) -> Bool {
        var rest = bytes[...]
        while let marker = rest.firstRange(of: boundary) {
            var index = marker.upperBound
            var atLineStart = false, inName = false
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == 0x0D, index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A {
                    if atLineStart { break } // the blank line: the headers end
                    atLineStart = true
                    inName = true
                    index += 2
                    continue
                }
                atLineStart = false
                if byte == UInt8(ascii: ":") { inName = false }
                if inName, byte > 0x7F { return false }
                index += 1
            }
            rest = bytes[marker.upperBound...]
        }
        return true
    }

    /// Gathers the parser's callbacks (one parse, on one thread).
    private final class PartCollector {
        let keepingFiles: Bool
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        var parts: [(headers: [(String, String)], body: [UInt8])] = []

        init(keepingFiles: Bool) {
            self.keepingFiles = keepingFiles
        }

        /// A piece of the current part's body: kept, unless the part is a file and files are not kept.
        func append(_ buffer: ByteBuffer) {
            if !keepingFiles, headers.contains(where: { $0.0.lowercased() == "content-disposition" && HeaderParameters($0.1)["filename"] != nil }) {
                return
            }
            body.append(contentsOf: buffer.readableBytesView)
        }

        func complete() {
            if parts.count <= MultipartForm.maximumParts { parts.append((headers, body)) }
            headers = []
            body = []
        }
    }
}

/// A header value with parameters: `form-data; name="files"; filename="a.json"` or
/// `multipart/form-data; boundary=xyz`. Quoted values may contain `;` and `\"`.
struct HeaderParameters {
    /// The value before the first `;`, trimmed.
    let value: String
    private var parameters: [String: String] = [:]

    init(_ header: String) {
        let characters = Array(header)
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 } }
        var head = ""
        while index < characters.count, characters[index] != ";" { head.append(characters[index]); index += 1 }
        value = head.trimmingCharacters(in: .whitespaces)
        while index < characters.count {
            index += 1 // the ";"
            skipSpaces()
            var name = ""
            while index < characters.count, characters[index] != "=", characters[index] != ";" { name.append(characters[index]); index += 1 }
            guard index < characters.count, characters[index] == "=" else { continue }
            index += 1
            skipSpaces()
            var text = ""
            if index < characters.count, characters[index] == "\"" {
                index += 1
                while index < characters.count, characters[index] != "\"" {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    text.append(characters[index])
                    index += 1
                }
                index += 1
                while index < characters.count, characters[index] != ";" { index += 1 }
            } else {
                while index < characters.count, characters[index] != ";" { text.append(characters[index]); index += 1 }
                text = text.trimmingCharacters(in: .whitespaces)
            }
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            if !key.isEmpty, parameters[key] == nil { parameters[key] = text }
        }
    }

    subscript(_ name: String) -> String? { parameters[name.lowercased()] }
}
