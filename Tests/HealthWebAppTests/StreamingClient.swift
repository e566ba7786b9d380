import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// An HTTP/1.1 client over a blocking socket to 127.0.0.1, on a Dispatch thread: it sends a
/// request whose body is produced piece by piece (a generated upload of hundreds of megabytes is
/// never held), then reads the answer to the end (`Connection: close`).
struct StreamingClient: Sendable {
    /// An answer: its status, headers (lowercased names) and body.
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    let port: Int

    /// Sends a request.
    /// - Parameters:
    ///   - method: `GET` or `POST`.
    ///   - path: the path and query.
    ///   - headers: more headers (Host and Connection are set).
    ///   - contentLength: the body's length; nil sends the body chunked.
    ///   - next: the body's next piece (given how many bytes were sent before it), nil at its end.
    func send(_ method: String, _ path: String, headers: [(String, String)] = [], contentLength: Int? = nil,
              next: @escaping @Sendable (Int) -> [UInt8]? = { _ in nil }) async throws -> Answer {
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.exchange(port: port, method: method, path: path, headers: headers,
                                                                     contentLength: contentLength, next: next) })
            }
        }
    }

    private static func exchange(port: Int, method: String, path: String, headers: [(String, String)], contentLength: Int?,
                                 next: (Int) -> [UInt8]?) throws -> Answer {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw WebTestFailure("socket: \(errno)") }
        defer { close(socketDescriptor) }
        guard LoopbackSocket.connect(socketDescriptor, port: port) else { throw WebTestFailure("connect: \(errno)") }
        let chunked = method != "GET" && contentLength == nil
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let contentLength { head += "Content-Length: \(contentLength)\r\n" }
        if chunked { head += "Transfer-Encoding: chunked\r\n" }
        head += "\r\n"
        // A write the server refused (it answered early, 413) ends the sending; the answer is read.
        var open = write(socketDescriptor, Array(head.utf8))
        var sent = 0
        while open, let piece = next(sent) {
            sent += piece.count
            if chunked {
                open = write(socketDescriptor, Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8))
            } else {
                open = write(socketDescriptor, piece)
            }
        }
        if open, chunked { _ = write(socketDescriptor, Array("0\r\n\r\n".utf8)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { throw WebTestFailure("no answer (\(received.count) bytes)") }
        let lines = text[..<end.lowerBound].components(separatedBy: "\r\n")
        guard let statusLine = lines.first, let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw WebTestFailure("no status line: \(text.prefix(200))")
        }
        var answerHeaders: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            answerHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: answerHeaders, body: String(text[end.upperBound...]))
    }

    /// Writes all of `bytes`; false once the peer stopped reading.
    private static func write(_ socketDescriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(socketDescriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
