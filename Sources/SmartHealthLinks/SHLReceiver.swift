import CommonSupport
import Foundation

/// One HTTP answer, as a ``SHLTransport`` gives it.
public struct SHLHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers (names compared case-insensitively).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates an answer.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the headers.
    ///   - body: the body.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header.
    /// - Parameter name: the header's name, in any case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// How a receiver reaches a link's server: the application's HTTP client behind two calls, so this
/// module stays free of I/O and every client of the application follows one HTTP policy
/// (timeouts, TLS, redirects not followed, bodies capped).
public protocol SHLTransport: Sendable {
    /// POSTs a JSON body.
    /// - Parameters:
    ///   - url: the manifest URL.
    ///   - json: the body, sent as `application/json`.
    func postJSON(_ url: String, json: [UInt8]) async throws -> SHLHTTPResponse
    /// GETs a URL.
    /// - Parameter url: a file's location, or a `U` link's URL with its `recipient`.
    func get(_ url: String) async throws -> SHLHTTPResponse
}

/// A file a receiver fetched and decrypted.
public struct SHLReceivedFile: Sendable, Hashable {
    /// The manifest's `contentType` (for a `U` link, the JWE's `cty`, or `nil` without one).
    public let contentType: String?
    /// The decrypted content.
    public let content: [UInt8]
    /// The manifest's `lastUpdated`, when given.
    public let lastUpdated: String?
    /// A long-term link's file `status`, when given.
    public let status: String?
}

/// Why opening a link failed.
public enum SHLReceiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link asks a passcode and none was given.
    case passcodeRequired
    /// The passcode was wrong; the server said how many attempts remain (when it did).
    case wrongPasscode(remainingAttempts: Int?)
    /// The server answered 404: the link is unknown, expired, revoked, or locked after too many
    /// wrong passcodes (a server answers all of these alike).
    case notActive
    /// The link's `exp` is before the time the receiver was given.
    case expired(at: Date)
    /// The server asks the receiver to slow down.
    case tooManyRequests(retryAfterSeconds: Int?)
    /// The server answered an unexpected status.
    case server(status: Int, what: String)
    /// The server could not be reached.
    case unreachable(String)
    /// An answer was larger than a link's file may be.
    case answerTooLarge(String)
    /// The link, the manifest or a file is not valid.
    case invalid(SHLinkError)

    public var description: String {
        switch self {
        case .passcodeRequired:
            "This link is protected by a passcode: give it with --passcode."
        case .wrongPasscode(let remaining?):
            remaining == 0 ? "Wrong passcode: no attempts remain; the link is now locked."
                : remaining == 1 ? "Wrong passcode: 1 attempt remains before the link locks."
                : "Wrong passcode: \(remaining) attempts remain before the link locks."
        case .wrongPasscode(nil):
            "Wrong passcode."
        case .notActive:
            "The link is no longer active: it expired, was revoked or locked after too many wrong passcodes, or never existed."
        case .expired(let date):
            "The link expired on \(SHLReceiver.isoDate(date))."
        case .tooManyRequests(let seconds?):
            "The server asks to wait \(seconds) seconds before asking again."
        case .tooManyRequests(nil):
            "The server asks to wait before asking again."
        case .server(let status, let what):
            "The server answered HTTP \(status) to \(what)."
        case .unreachable(let reason):
            "The server cannot be reached: \(reason)."
        case .answerTooLarge(let reason):
            "The server's answer is too large: \(reason)."
        case .invalid(let error):
            error.description
        }
    }
}

/// Opens SMART Health Links as the links specification describes a receiver: a `POST` of the
/// manifest request (or a `GET` of a `U` link's single file), each file fetched from its
/// `location` or taken `embedded`, and decrypted with the link's key.
public struct SHLReceiver: Sendable {
    /// The transport.
    public let transport: any SHLTransport
    /// Files no longer than this many characters are asked embedded in the manifest.
    public var embeddedLengthMax: Int
    /// The largest file accepted, encrypted or inflated.
    public var maximumFileSize: Int

    /// Creates a receiver.
    /// - Parameters:
    ///   - transport: how the server is reached.
    ///   - embeddedLengthMax: the longest file asked embedded (characters of its JWE).
    ///   - maximumFileSize: the largest file accepted.
    public init(transport: any SHLTransport, embeddedLengthMax: Int = 1 << 20, maximumFileSize: Int = SHLFile.defaultMaximumSize) {
        self.transport = transport
        self.embeddedLengthMax = embeddedLengthMax
        self.maximumFileSize = maximumFileSize
    }

    /// Opens a link and decrypts its files.
    /// - Parameters:
    ///   - link: the link.
    ///   - recipient: who is opening it (the sharer sees it in their log).
    ///   - passcode: the passcode, for links flagged `P`.
    ///   - now: the time the link's `exp` is compared with.
    /// - Returns: the files, in the manifest's order.
    /// - Throws: ``SHLReceiveError``.
    public func open(_ link: SHLinkPayload, recipient: String, passcode: String? = nil, now: Date = Date()) async throws(SHLReceiveError) -> [SHLReceivedFile] {
        if let exp = link.expiration, Double(exp) < now.timeIntervalSince1970 {
            throw .expired(at: Date(timeIntervalSince1970: Double(exp)))
        }
        if link.flags.contains(.direct) {
            let separator = link.url.contains("?") ? "&" : "?"
            let url = link.url + separator + "recipient=" + Self.queryEscaped(recipient)
            let response = try await send("the link's file") { try await transport.get(url) }
            try Self.check(response, what: "the link's file")
            let file = try decrypt(String(decoding: response.body, as: UTF8.self), key: link.key)
            return [SHLReceivedFile(contentType: file.contentType, content: file.content, lastUpdated: nil, status: nil)]
        }
        if link.flags.contains(.passcode) && (passcode ?? "").isEmpty { throw .passcodeRequired }
        let request = SHLManifestRequest(recipient: recipient, passcode: link.flags.contains(.passcode) ? passcode : nil,
                                         embeddedLengthMax: embeddedLengthMax)
        let response = try await send("the link") { try await transport.postJSON(link.url, json: request.json) }
        if response.status == 401 {
            throw .wrongPasscode(remainingAttempts: SHLPasscodeRefusal(json: response.body)?.remainingAttempts)
        }
        try Self.check(response, what: "the link")
        let manifest: SHLManifest
        do {
            manifest = try SHLManifest(json: response.body)
        } catch {
            throw .invalid(error)
        }
        var files: [SHLReceivedFile] = []
        for (index, entry) in manifest.files.enumerated() {
            let jwe: String
            switch entry.source {
            case .embedded(let text):
                jwe = text
            case .location(let url):
                let what = "file \(index + 1)"
                let answer = try await send(what) { try await transport.get(url) }
                try Self.check(answer, what: what)
                jwe = String(decoding: answer.body, as: UTF8.self)
            }
            let file = try decrypt(jwe, key: link.key)
            files.append(SHLReceivedFile(contentType: entry.contentType, content: file.content, lastUpdated: entry.lastUpdated, status: entry.status))
        }
        return files
    }

    private func decrypt(_ jwe: String, key: [UInt8]) throws(SHLReceiveError) -> SHLDecryptedFile {
        do {
            return try SHLFile.decrypt(jwe, key: key, maximumSize: maximumFileSize)
        } catch {
            throw .invalid(error)
        }
    }

    private func send(_ what: String, _ call: () async throws -> SHLHTTPResponse) async throws(SHLReceiveError) -> SHLHTTPResponse {
        do {
            return try await call()
        } catch let error as SHLReceiveError {
            // A transport that says what failed in the receiver's terms (an answer too large).
            throw error
        } catch {
            throw .unreachable("\(error)")
        }
    }

    private static func check(_ response: SHLHTTPResponse, what: String) throws(SHLReceiveError) {
        switch response.status {
        case 200: return
        case 404: throw .notActive
        case 429: throw .tooManyRequests(retryAfterSeconds: response.header("Retry-After").flatMap { Int($0) })
        default: throw .server(status: response.status, what: what)
        }
    }

    /// A query value, percent-encoded.
    static func queryEscaped(_ text: String) -> String {
        // RFC 3986's unreserved characters, ASCII only (CharacterSet.alphanumerics has every script's letters).
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// An instant as ISO 8601 in UTC, to the second.
    static func isoDate(_ date: Date) -> String {
        ISODateText.string(secondsSince1970: date.timeIntervalSince1970)
    }
}
