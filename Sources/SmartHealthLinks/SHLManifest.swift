import Foundation
import ExactJSON

/// The content types a link's files have, as the links specification names them.
public enum SHLContentType {
    /// A SMART Health Card file (`{"verifiableCredential": [...]}`).
    public static let smartHealthCard = "application/smart-health-card"
    /// A FHIR resource, usually a Bundle.
    public static let fhirJSON = "application/fhir+json"
    /// Access to a FHIR API (`application/smart-api-access`).
    public static let smartAPIAccess = "application/smart-api-access"

    /// A content type's media type alone, lower-cased, without its parameters: the links
    /// specification's own example lists `application/fhir+json;fhirVersion=4.0.1`, which is
    /// `application/fhir+json`.
    /// - Parameter contentType: A file's content type as a manifest or a JWE header gives it.
    /// - Returns: The media type (nil for nil).
    public static func mediaType(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }
}

/// What a receiver posts to a link's manifest URL.
public struct SHLManifestRequest: Sendable, Hashable {
    /// Who is opening the link (a person's or an organisation's name), for the sharer's log.
    public let recipient: String
    /// The passcode, for links flagged `P`.
    public let passcode: String?
    /// Files no longer than this many characters may come embedded in the answer.
    public let embeddedLengthMax: Int?

    /// The longest recipient or passcode a server reads.
    public static let maximumTextLength = 1_024

    /// Creates a request.
    /// - Parameters:
    ///   - recipient: who is opening the link.
    ///   - passcode: the passcode, if the link has one.
    ///   - embeddedLengthMax: the longest file the receiver wants embedded.
    public init(recipient: String, passcode: String? = nil, embeddedLengthMax: Int? = nil) {
        self.recipient = recipient
        self.passcode = passcode
        self.embeddedLengthMax = embeddedLengthMax
    }

    /// The request's JSON body.
    public var json: [UInt8] {
        var members = [JSONMember("recipient", .string(recipient))]
        if let passcode { members.append(JSONMember("passcode", .string(passcode))) }
        if let embeddedLengthMax { members.append(JSONMember("embeddedLengthMax", .number(String(embeddedLengthMax)))) }
        return JSONWriter.serialize(.object(members: members))
    }

    /// Reads a request body as a server does: `recipient` required, unknown members ignored.
    /// - Parameter bytes: the body.
    /// - Throws: ``SHLinkError/badManifest(_:)`` naming the problem.
    public init(json bytes: [UInt8]) throws(SHLinkError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: SHLink.maximumJSONDepth, allowsByteOrderMark: false)
        } catch {
            throw .badManifest("the request is not JSON (\(error.redacted))")
        }
        guard let object = value.objectValue else { throw .badManifest("the request is not a JSON object") }
        guard let recipient = object["recipient"]?.stringValue, !recipient.isEmpty,
              recipient.count <= Self.maximumTextLength else {
            throw .badManifest("the request needs a \"recipient\": a non-empty string")
        }
        var passcode: String?
        if let value = object["passcode"], value != .null {
            guard let text = value.stringValue, text.count <= Self.maximumTextLength else {
                throw .badManifest("\"passcode\" is not a string")
            }
            passcode = text
        }
        var embeddedLengthMax: Int?
        if let value = object["embeddedLengthMax"], value != .null {
            guard let number = value.doubleValue, number >= 0, number == number.rounded(), number < 1e15 else {
                throw .badManifest("\"embeddedLengthMax\" is not a whole number of characters")
            }
            embeddedLengthMax = Int(number)
        }
        self.init(recipient: recipient, passcode: passcode, embeddedLengthMax: embeddedLengthMax)
    }
}

/// One file of a manifest: where to fetch it, or the file itself.
public struct SHLManifestFile: Sendable, Hashable {
    /// Where the file is: its `location`, or the JWE `embedded` in the manifest.
    public enum Source: Sendable, Hashable {
        /// A URL answering `GET` with the JWE, valid for a short time.
        case location(String)
        /// The JWE itself.
        case embedded(String)
    }

    /// `contentType`.
    public let contentType: String
    /// `location` or `embedded`.
    public let source: Source
    /// `lastUpdated`, as the server wrote it (an ISO 8601 instant).
    public let lastUpdated: String?
    /// `status` of a long-term link's file: `finalized`, `can-change` or `no-longer-valid`.
    public let status: String?

    /// Creates a manifest entry.
    /// - Parameters:
    ///   - contentType: the file's content type.
    ///   - source: where the file is.
    ///   - lastUpdated: when it last changed.
    ///   - status: a long-term link's file status.
    public init(contentType: String, source: Source, lastUpdated: String? = nil, status: String? = nil) {
        self.contentType = contentType
        self.source = source
        self.lastUpdated = lastUpdated
        self.status = status
    }
}

/// A manifest: the answer to a link's `POST`.
public struct SHLManifest: Sendable, Hashable {
    /// `files`.
    public let files: [SHLManifestFile]

    /// The most files a manifest read by this library may list.
    public static let maximumFileCount = 10_000

    /// Creates a manifest.
    /// - Parameter files: its files.
    public init(files: [SHLManifestFile]) { self.files = files }

    /// The manifest's JSON.
    public var json: [UInt8] {
        let entries: [JSONValue] = files.map { file in
            var members = [JSONMember("contentType", .string(file.contentType))]
            switch file.source {
            case .location(let url): members.append(JSONMember("location", .string(url)))
            case .embedded(let jwe): members.append(JSONMember("embedded", .string(jwe)))
            }
            if let lastUpdated = file.lastUpdated { members.append(JSONMember("lastUpdated", .string(lastUpdated))) }
            if let status = file.status { members.append(JSONMember("status", .string(status))) }
            return .object(members: members)
        }
        return JSONWriter.serialize(.object(members: [JSONMember("files", .array(entries))]))
    }

    /// Reads a manifest as a receiver does: each file has a content type and exactly one of
    /// `location` (an `https` URL, or `http` on this machine) and `embedded`; unknown members are
    /// ignored.
    /// - Parameter bytes: the server's answer.
    /// - Throws: ``SHLinkError/badManifest(_:)``.
    public init(json bytes: [UInt8]) throws(SHLinkError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: SHLink.maximumJSONDepth, allowsByteOrderMark: false)
        } catch {
            throw .badManifest("it is not JSON (\(error.redacted))")
        }
        guard let entries = value["files"]?.arrayValue else { throw .badManifest("it has no \"files\" list") }
        guard entries.count <= Self.maximumFileCount else { throw .badManifest("it lists more than \(Self.maximumFileCount) files") }
        var files: [SHLManifestFile] = []
        files.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard let contentType = entry["contentType"]?.stringValue else {
                throw .badManifest("file \(index + 1) has no \"contentType\"")
            }
            let location = entry["location"]?.stringValue, embedded = entry["embedded"]?.stringValue
            let source: SHLManifestFile.Source
            switch (location, embedded) {
            case (let url?, nil):
                try SHLink.checkFileURL(url, role: "file's location")
                source = .location(url)
            case (nil, let jwe?):
                source = .embedded(jwe)
            case (.some, .some):
                throw .badManifest("file \(index + 1) has both \"location\" and \"embedded\"")
            case (nil, nil):
                throw .badManifest("file \(index + 1) has neither \"location\" nor \"embedded\"")
            }
            files.append(SHLManifestFile(contentType: contentType, source: source,
                                         lastUpdated: entry["lastUpdated"]?.stringValue, status: entry["status"]?.stringValue))
        }
        self.init(files: files)
    }
}

/// A server's answer to a wrong passcode: `401` with `{"remainingAttempts": n}`.
public struct SHLPasscodeRefusal: Sendable, Hashable {
    /// How many more wrong passcodes the link accepts before it locks.
    public let remainingAttempts: Int

    /// Creates the answer.
    /// - Parameter remainingAttempts: the attempts left.
    public init(remainingAttempts: Int) { self.remainingAttempts = remainingAttempts }

    /// The answer's JSON body.
    public var json: [UInt8] {
        JSONWriter.serialize(.object(members: [JSONMember("remainingAttempts", .number(String(remainingAttempts)))]))
    }

    /// Reads a `401` body; `nil` when it does not say how many attempts remain.
    /// - Parameter bytes: the body.
    public init?(json bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes, maximumDepth: SHLink.maximumJSONDepth, allowsByteOrderMark: false),
              let number = value["remainingAttempts"]?.doubleValue, number >= 0, number < 1e9 else { return nil }
        self.init(remainingAttempts: Int(number))
    }
}
