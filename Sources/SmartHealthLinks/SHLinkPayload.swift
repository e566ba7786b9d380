import CommonSupport
import ExactJSON
import Foundation

/// The flags of a SMART Health Link (`flag`: letters in alphabetical order).
public struct SHLinkFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    /// Creates flags from their bits.
    /// - Parameter rawValue: the bits, as the static members define them.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `L`: a long-term link whose files may change; receivers may poll it.
    public static let longTerm = SHLinkFlags(rawValue: 1 << 0)
    /// `P`: the manifest asks a passcode.
    public static let passcode = SHLinkFlags(rawValue: 1 << 1)
    /// `U`: the link's single file is fetched directly with `GET url?recipient=…`.
    public static let direct = SHLinkFlags(rawValue: 1 << 2)

    /// Reads a `flag` string; letters this library does not know are ignored, as the
    /// specification asks of receivers.
    /// - Parameter letters: the payload's `flag` member.
    public init(letters: String) {
        var flags: SHLinkFlags = []
        for letter in letters {
            switch letter {
            case "L": flags.insert(.longTerm)
            case "P": flags.insert(.passcode)
            case "U": flags.insert(.direct)
            default: continue
            }
        }
        self = flags
    }

    /// The `flag` string: the letters in alphabetical order (`LP`, `U`…), empty when no flag is set.
    public var letters: String {
        (contains(.longTerm) ? "L" : "") + (contains(.passcode) ? "P" : "") + (contains(.direct) ? "U" : "")
    }
}

/// What a `shlink:/` link carries: where its manifest is, the key of its files, and hints.
public struct SHLinkPayload: Sendable, Hashable {
    /// `url`: the manifest URL (at most 128 characters).
    public let url: String
    /// `key`: the 32-byte key every file of the link is encrypted with (`alg: dir`, `A256GCM`).
    public let key: [UInt8]
    /// `exp`: when the link stops working, in seconds since 1970 (a hint for receivers).
    public let expiration: Int64?
    /// `flag`.
    public let flags: SHLinkFlags
    /// `label`: a short description for a person (at most 80 characters in links this library makes).
    public let label: String?
    /// `v`: the format's version (1).
    public let version: Int

    /// Creates a payload, refusing what the links specification forbids.
    /// - Parameters:
    ///   - url: the manifest URL: `https`, or `http` on this machine (`localhost`, `127.0.0.1`,
    ///     `[::1]`); at most 128 characters.
    ///   - key: 32 bytes.
    ///   - expiration: seconds since 1970, or `nil` for a link without an expiry hint.
    ///   - flags: the link's flags; `direct` never with `passcode`.
    ///   - label: at most 80 characters.
    ///   - version: the format's version; only 1 exists.
    /// - Throws: ``SHLinkError`` naming the first problem.
    public init(url: String, key: [UInt8], expiration: Int64? = nil, flags: SHLinkFlags = [],
                label: String? = nil, version: Int = 1) throws(SHLinkError) {
        try Self.check(url: url, key: key, flags: flags, version: version)
        if let label, label.count > SHLink.maximumLabelLength { throw .labelTooLong(label.count) }
        self.init(checkedURL: url, key: key, expiration: expiration, flags: flags, label: label, version: version)
    }

    private init(checkedURL url: String, key: [UInt8], expiration: Int64?, flags: SHLinkFlags, label: String?, version: Int) {
        self.url = url
        self.key = key
        self.expiration = expiration
        self.flags = flags
        self.label = label
        self.version = version
    }

    private static func check(url: String, key: [UInt8], flags: SHLinkFlags, version: Int) throws(SHLinkError) {
        if version != 1 { throw .unsupportedVersion(version) }
        if key.count != SHLink.keyByteCount { throw .badKey }
        if flags.contains(.direct) && flags.contains(.passcode) { throw .directWithPasscode }
        try SHLink.checkFileURL(url, role: "address")
        if url.count > SHLink.maximumManifestURLLength {
            throw .badManifestURL("is \(url.count) characters long; a link's address has at most \(SHLink.maximumManifestURLLength)")
        }
    }

    /// The payload as the link's minified JSON, members in the specification's order.
    public var json: [UInt8] {
        var members = [JSONMember("url", .string(url)), JSONMember("key", .string(Base64URL.encode(key)))]
        if let expiration { members.append(JSONMember("exp", .number(String(expiration)))) }
        if !flags.letters.isEmpty { members.append(JSONMember("flag", .string(flags.letters))) }
        if let label { members.append(JSONMember("label", .string(label))) }
        if version != 1 { members.append(JSONMember("v", .number(String(version)))) }
        return JSONWriter.serialize(.object(members: members))
    }

    /// Reads a payload's JSON as a receiver does: unknown members are ignored, required ones
    /// checked, and a label longer than 80 characters kept (it is only a hint).
    /// - Parameter bytes: the decoded payload.
    /// - Throws: ``SHLinkError``.
    public init(json bytes: [UInt8]) throws(SHLinkError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: SHLink.maximumJSONDepth, allowsByteOrderMark: false)
        } catch {
            throw .payloadNotJSON(error.redacted.description)
        }
        guard let object = value.objectValue else { throw .payloadNotJSON("it is a JSON \(value.kindName)") }
        guard let url = object["url"] else { throw .payloadMember("url", "is missing") }
        guard let urlText = url.stringValue else { throw .payloadMember("url", "is not a string") }
        guard let keyValue = object["key"] else { throw .payloadMember("key", "is missing") }
        guard let keyText = keyValue.stringValue, keyText.utf8.count == 43,
              let key = try? Base64URL.decode(keyText) else { throw .badKey }
        var expiration: Int64?
        if let exp = object["exp"], exp != .null {
            guard let seconds = exp.doubleValue, seconds.isFinite, seconds >= 0, seconds < 1e15 else {
                throw .payloadMember("exp", "is not a time in seconds since 1970")
            }
            expiration = Int64(seconds.rounded(.down))
        }
        var flags: SHLinkFlags = []
        if let flag = object["flag"], flag != .null {
            guard let letters = flag.stringValue else { throw .payloadMember("flag", "is not a string") }
            flags = SHLinkFlags(letters: letters)
        }
        var label: String?
        if let labelValue = object["label"], labelValue != .null {
            guard let text = labelValue.stringValue else { throw .payloadMember("label", "is not a string") }
            label = text
        }
        var version = 1
        if let v = object["v"], v != .null {
            guard let number = v.doubleValue, number == number.rounded(), abs(number) < 1e6 else {
                throw .payloadMember("v", "is not a whole number")
            }
            version = Int(number)
        }
        try Self.check(url: urlText, key: key, flags: flags, version: version)
        self.init(checkedURL: urlText, key: key, expiration: expiration, flags: flags, label: label, version: version)
    }
}

/// Reading and writing `shlink:/` links.
public enum SHLink {
    /// The link scheme's prefix.
    public static let prefix = "shlink:/"
    /// The longest link text read, viewer prefix included (a QR code holds fewer than 4,300
    /// characters; extensions may lengthen a payload).
    public static let maximumLinkLength = 8_192
    /// The longest manifest URL (the specification's limit).
    public static let maximumManifestURLLength = 128
    /// The longest label (the specification's limit).
    public static let maximumLabelLength = 80
    /// The key's length in bytes.
    public static let keyByteCount = 32
    /// How deep the JSON documents of links and manifests may nest.
    static let maximumJSONDepth = 16

    /// Reads a link: `shlink:/…`, or a viewer address whose fragment holds one
    /// (`https://viewer.example/#shlink:/…`). Surrounding white space is ignored.
    /// - Parameter text: what a person pasted or a QR code held.
    /// - Throws: ``SHLinkError``.
    public static func parse(_ text: String) throws(SHLinkError) -> SHLinkPayload {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.utf8.count > maximumLinkLength { throw .linkTooLong(trimmed.utf8.count) }
        let link: Substring
        if trimmed.hasPrefix(prefix) {
            link = Substring(trimmed)
        } else if let hash = trimmed.firstIndex(of: "#"), trimmed[trimmed.index(after: hash)...].hasPrefix(prefix) {
            link = trimmed[trimmed.index(after: hash)...]
        } else {
            throw .notALink
        }
        let body = link.dropFirst(prefix.count)
        guard !body.isEmpty, let bytes = try? Base64URL.decode(String(body)) else { throw .payloadNotBase64URL }
        return try SHLinkPayload(json: bytes)
    }

    /// The `shlink:/` link of a payload.
    /// - Parameter payload: what the link carries.
    public static func link(_ payload: SHLinkPayload) -> String {
        prefix + Base64URL.encode(payload.json)
    }

    /// A viewer address for a link: the viewer's URL, `#`, and the link, so the link stays in the
    /// fragment and never reaches the viewer's server.
    /// - Parameters:
    ///   - payload: what the link carries.
    ///   - viewer: the viewer page's URL, without a fragment.
    public static func viewerLink(_ payload: SHLinkPayload, viewer: String) -> String {
        viewer + "#" + link(payload)
    }

    /// A fresh 32-byte key for a link's files.
    public static func newKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<keyByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A fresh manifest identifier: 32 random bytes in base64url (43 characters), the last segment
    /// of a link's manifest URL. Never one that starts with `-`: a person types it as an argument
    /// (`health share update ID`, `share revoke ID`), where a leading `-` reads as an option (one id
    /// in 64 did). Drawn again in that case, which keeps every other id equally likely.
    public static func newManifestID() -> String {
        while true {
            let bytes = newKey()
            // The first character is the first byte's top six bits: 62 is `-` in base64url.
            if bytes[0] >> 2 != 62 { return Base64URL.encode(bytes) }
        }
    }

    /// Checks an address a link or a manifest names: `https`, or `http` on this machine.
    /// - Parameters:
    ///   - text: the URL.
    ///   - role: what it is, for the message.
    static func checkFileURL(_ text: String, role: String) throws(SHLinkError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            throw role == "address" ? .badManifestURL("is not a web address") : .badManifest("a \(role) is not a web address")
        }
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw role == "address"
                ? .badManifestURL("uses \(scheme):, not https:")
                : .badManifest("a \(role) uses \(scheme):, not https:")
        }
    }
}
