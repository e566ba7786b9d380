import ExactJSON
import FhirBlocks
import Foundation

/// One encrypted file of a SMART Health Link, as the wallet uploads it. The server never sees
/// the link's key: it stores and serves the ciphertext only.
public struct SharedLinkFile: Sendable, Hashable {
    /// The file's content type: `application/fhir+json`, `application/smart-health-card`, ...
    public var contentType: String
    /// The encrypted file, JWE compact serialization (`alg: dir`, `enc: A256GCM`).
    public var jwe: String

    /// Creates a file.
    /// - Parameters:
    ///   - contentType: The content type of the decrypted file.
    ///   - jwe: The encrypted file, JWE compact serialization.
    public init(contentType: String, jwe: String) {
        self.contentType = contentType
        self.jwe = jwe
    }
}

/// What a wallet asks the server to host: the files of a new link and its settings.
public struct SharedLinkRequest: Sendable, Hashable {
    /// The encrypted files (at least one; exactly one for a direct link).
    public var files: [SharedLinkFile]
    /// The passcode a recipient must give (flag `P`); the server keeps only a scrypt hash of it.
    public var passcode: String?
    /// How many wrong passcodes the link tolerates over its lifetime; the server's default (10)
    /// when nil. Only meaningful with a passcode.
    public var attempts: Int?
    /// When the link stops answering; nil for no expiry.
    public var expires: Date?
    /// A short description a recipient sees, at most 80 characters.
    public var label: String?
    /// A long-term link (flag `L`) whose files the wallet may update.
    public var longTerm: Bool
    /// A direct link (flag `U`): one file fetched with `GET`; refused together with a passcode.
    public var direct: Bool

    /// Creates a request.
    /// - Parameters:
    ///   - files: The encrypted files.
    ///   - passcode: The passcode a recipient must give, or nil for none.
    ///   - attempts: The wrong-passcode limit over the link's lifetime; nil for the server's default.
    ///   - expires: When the link expires; nil for never.
    ///   - label: A short description, at most 80 characters.
    ///   - longTerm: Whether the link is long-term (flag `L`).
    ///   - direct: Whether the link is direct (flag `U`).
    public init(files: [SharedLinkFile], passcode: String? = nil, attempts: Int? = nil, expires: Date? = nil,
                label: String? = nil, longTerm: Bool = false, direct: Bool = false) {
        self.files = files
        self.passcode = passcode
        self.attempts = attempts
        self.expires = expires
        self.label = label
        self.longTerm = longTerm
        self.direct = direct
    }
}

/// One request for a link's manifest (or its direct file), as the server logged it.
public struct SharedLinkAccess: Sendable, Hashable {
    /// The name the recipient gave.
    public var recipient: String
    /// When the request came.
    public var at: Date
    /// What the server answered: `opened`, `wrong-passcode`, `refused-locked`,
    /// `refused-expired`, `refused-revoked`, ...
    public var outcome: String

    /// Creates an access entry.
    /// - Parameters:
    ///   - recipient: The name the recipient gave.
    ///   - at: When the request came.
    ///   - outcome: What the server answered.
    public init(recipient: String, at: Date, outcome: String) {
        self.recipient = recipient
        self.at = at
        self.outcome = outcome
    }

    /// Whether the request opened the link (its manifest or file was served).
    public var opened: Bool { outcome == "opened" }

    /// ``outcome`` in words, as the sharer reads it: "opened the link", "was refused: wrong
    /// passcode", ...; an outcome this client does not know is shown as the server wrote it.
    public var outcomeWords: String { Self.words(outcome: outcome) }

    /// An access log outcome (or a `shared-link-access` audit entry's reason) in words.
    /// - Parameter outcome: The server's outcome code: `opened`, `wrong-passcode`, ...
    /// - Returns: What happened, as a phrase after the recipient's name.
    public static func words(outcome: String) -> String {
        switch outcome {
        case "opened": "opened the link"
        case "wrong-passcode": "was refused: wrong passcode"
        case "passcode-missing": "was refused: no passcode given"
        case "refused-locked": "was refused: the link is locked after too many wrong passcodes"
        case "refused-expired": "was refused: the link had expired"
        case "refused-revoked": "was refused: the link had been revoked"
        case "too-many-requests": "was refused: asked again too soon"
        default: "was refused (\(outcome))"
        }
    }
}

/// One page of a wallet's links (`GET /shl-links`), newest first.
public struct SharedLinkPage: Sendable, Hashable {
    /// The links of the page.
    public var links: [SharedLinkRecord]
    /// The cursor of the next (older) page; nil on the last page.
    public var next: String?

    /// Creates a page.
    /// - Parameters:
    ///   - links: The links of the page.
    ///   - next: The cursor of the next page, nil on the last.
    public init(links: [SharedLinkRecord], next: String?) {
        self.links = links
        self.next = next
    }
}

/// A link the server hosts for the wallet, as the management endpoints describe it.
public struct SharedLinkRecord: Sendable, Hashable {
    /// The link's id: the manifest URL's last segment (43 base64url characters).
    public var id: String
    /// The manifest URL, `{public-url}/shl/{id}`.
    public var manifestURL: String
    /// The link's flags: `""`, `"P"`, `"L"`, `"LP"` or `"U"`.
    public var flags: String
    /// The link's label.
    public var label: String?
    /// When the link expires; nil for never.
    public var expires: Date?
    /// When the link was created.
    public var created: Date
    /// `active`, `expired`, `revoked` or `locked` (no passcode attempts left).
    public var status: String
    /// The wrong passcodes still tolerated; nil for a link without passcode.
    public var remainingAttempts: Int?
    /// How many files the link serves.
    public var fileCount: Int
    /// The latest requests for the link, newest first: its latest 100 openings and its latest
    /// 100 refusals (so refusals never hide who opened it).
    public var accesses: [SharedLinkAccess]

    /// Creates a record.
    /// - Parameters:
    ///   - id: The link's id.
    ///   - manifestURL: The manifest URL.
    ///   - flags: The link's flags.
    ///   - label: The link's label.
    ///   - expires: When the link expires.
    ///   - created: When the link was created.
    ///   - status: The link's state.
    ///   - remainingAttempts: The wrong passcodes still tolerated.
    ///   - fileCount: How many files the link serves.
    ///   - accesses: The latest requests, newest first.
    public init(id: String, manifestURL: String, flags: String, label: String?, expires: Date?, created: Date, status: String,
                remainingAttempts: Int?, fileCount: Int, accesses: [SharedLinkAccess]) {
        self.id = id
        self.manifestURL = manifestURL
        self.flags = flags
        self.label = label
        self.expires = expires
        self.created = created
        self.status = status
        self.remainingAttempts = remainingAttempts
        self.fileCount = fileCount
        self.accesses = accesses
    }
}

extension WalletClient {
    /// The management endpoints' path (`/shl-links`, with the wallet's bearer token).
    static let sharedLinksPath = "shl-links"

    /// The `error` code with which the server refuses to create a link because its public URL
    /// would make the link's manifest URL longer than the links specification's 128 characters
    /// (HTTP 409; its `error_description` says how long the public URL may be).
    public static let publicURLTooLongError = "public_url_too_long"

    /// The most pages ``links()`` follows (at 500 links a page).
    static let maximumLinkPages = 2_000

    /// `POST /shl-links`: asks the server to host a new link with `request`'s files and settings.
    /// - Parameter request: The encrypted files and the link's settings.
    /// - Returns: The link as the server keeps it (its id and manifest URL among others).
    public func createLink(_ request: SharedLinkRequest) async throws(FhirBlocksClientError) -> SharedLinkRecord {
        if request.direct && request.passcode != nil {
            throw .invalidRequest("a direct link (U) cannot have a passcode")
        }
        var body = JSONObject()
        body["files"] = Self.filesJSON(request.files)
        if let passcode = request.passcode { body["passcode"] = .string(passcode) }
        if let attempts = request.attempts { body["attempts"] = .number(String(attempts)) }
        if let expires = request.expires { body["expires"] = .number(String(Self.epochSeconds(expires))) }
        if let label = request.label { body["label"] = .string(label) }
        body["longTerm"] = .bool(request.longTerm)
        body["direct"] = .bool(request.direct)
        let path = Self.sharedLinksPath
        let response = try await session.client.successfulExchange(.POST, path, body: JSONWriter.serialize(.object(body)),
                                                                   contentType: "application/json", bearer: try await token().accessToken)
        return try Self.record(JSONReader(body: response.body, endpoint: path))
    }

    /// `GET /shl-links`: the links this wallet created, newest first, every page of them.
    /// - Returns: Every link of the wallet, with its state and latest accesses.
    public func links() async throws(FhirBlocksClientError) -> [SharedLinkRecord] {
        var records: [SharedLinkRecord] = []
        var cursor: String?
        var seen: Set<String> = []
        for _ in 0..<Self.maximumLinkPages {
            let page = try await linksPage(cursor: cursor)
            records += page.links
            guard let next = page.next else { return records }
            guard seen.insert(next).inserted else {
                throw .malformedResponse(endpoint: Self.sharedLinksPath, reason: "the pages' \"next\" cursors go round in a circle")
            }
            cursor = next
        }
        throw .malformedResponse(endpoint: Self.sharedLinksPath, reason: "more than \(Self.maximumLinkPages) pages of links")
    }

    /// `GET /shl-links[?cursor=…]`: one page of the links this wallet created, newest first.
    /// - Parameter cursor: The cursor of the page (a previous page's ``SharedLinkPage/next``);
    ///   nil for the newest links.
    /// - Returns: The page's links and the next page's cursor.
    public func linksPage(cursor: String? = nil) async throws(FhirBlocksClientError) -> SharedLinkPage {
        var query: [(String, String)] = []
        if let cursor {
            guard !cursor.isEmpty, cursor.utf8.count <= 128 else { throw .invalidRequest("a links cursor has 1 to 128 characters") }
            query.append(("cursor", cursor))
        }
        let response = try await session.client.successfulExchange(.GET, Self.sharedLinksPath, query: query, bearer: try await token().accessToken)
        let body = try JSONReader(body: response.body, endpoint: Self.sharedLinksPath)
        var records: [SharedLinkRecord] = []
        for (index, element) in try body.array("links").enumerated() {
            records.append(try Self.record(body.reader(element, context: "links[\(index)]")))
        }
        return SharedLinkPage(links: records, next: try body.optionalString("next"))
    }

    /// `PUT /shl-links/{id}`: replaces the files of one of this wallet's links (a long-term link's
    /// new content, encrypted with the same key).
    /// - Parameters:
    ///   - id: The link's id.
    ///   - files: The new encrypted files.
    /// - Returns: The link after the change.
    public func updateLink(id: String, files: [SharedLinkFile]) async throws(FhirBlocksClientError) -> SharedLinkRecord {
        let path = try Self.linkPath(id)
        var body = JSONObject()
        body["files"] = Self.filesJSON(files)
        let response = try await session.client.successfulExchange(.PUT, path, body: JSONWriter.serialize(.object(body)),
                                                                   contentType: "application/json", bearer: try await token().accessToken)
        return try Self.record(JSONReader(body: response.body, endpoint: Self.sharedLinksPath))
    }

    /// `DELETE /shl-links/{id}`: revokes one of this wallet's links; from then on its manifest
    /// and files answer 404.
    /// - Parameter id: The link's id.
    public func revokeLink(id: String) async throws(FhirBlocksClientError) {
        let path = try Self.linkPath(id)
        _ = try await session.client.successfulExchange(.DELETE, path, bearer: try await token().accessToken)
    }

    // MARK: Wire

    /// The path of one link; the id must be base64url text (so it cannot leave the path).
    static func linkPath(_ id: String) throws(FhirBlocksClientError) -> String {
        let valid = !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
        guard valid else { throw .invalidRequest("a link id is base64url text of at most 64 characters") }
        return "\(sharedLinksPath)/\(id)"
    }

    static func filesJSON(_ files: [SharedLinkFile]) -> JSONValue {
        .array(files.map { file in
            var object = JSONObject()
            object["contentType"] = .string(file.contentType)
            object["jwe"] = .string(file.jwe)
            return .object(object)
        })
    }

    static func epochSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, let value = Int64(exactly: seconds) else { return seconds > 0 ? Int64.max : 0 }
        return value
    }

    static func date(_ reader: JSONReader, _ name: String) throws(FhirBlocksClientError) -> Date {
        Date(timeIntervalSince1970: TimeInterval(try reader.integer(name)))
    }

    static func record(_ reader: JSONReader) throws(FhirBlocksClientError) -> SharedLinkRecord {
        var accesses: [SharedLinkAccess] = []
        for (index, element) in try reader.array("accesses").enumerated() {
            let item = try reader.reader(element, context: "accesses[\(index)]")
            accesses.append(SharedLinkAccess(recipient: try item.string("recipient"), at: try date(item, "at"),
                                             outcome: try item.string("outcome")))
        }
        let expires: Date? = reader.fields.has("expires") && reader.object["expires"] != .null ? try date(reader, "expires") : nil
        let remaining: Int? = reader.fields.has("remainingAttempts") && reader.object["remainingAttempts"] != .null
            ? try reader.integer("remainingAttempts") : nil
        return SharedLinkRecord(id: try reader.string("id"), manifestURL: try reader.string("manifestURL"), flags: try reader.string("flags"),
                                label: try reader.optionalString("label"), expires: expires, created: try date(reader, "created"),
                                status: try reader.string("status"), remainingAttempts: remaining, fileCount: try reader.integer("fileCount"),
                                accesses: accesses)
    }
}

extension FhirBlocksClientError {
    /// Whether the server refused to create a link because its public URL is too long for a
    /// link's manifest URL (`WalletClient.publicURLTooLongError`).
    public var isPublicURLTooLong: Bool {
        if case .http(_, 409, WalletClient.publicURLTooLongError, _) = self { return true }
        return false
    }
}
