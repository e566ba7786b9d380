import Foundation
import SmartHealthCards

/// An issuer URL that passed the checks of rule 6, and the addresses of its well-known documents
/// (rules 5 and 41).
///
/// The checks run before any network access: `https` scheme, a host (a name, an IPv4 address or a
/// bracketed IPv6 address) with an optional port, no user info, no query, no fragment, no `.` or
/// `..` path segment and no encoded `/` or `\` (so an issuer can never name another issuer's
/// documents), printable ASCII only, and no trailing `/`.
struct IssuerURL: Sendable, Hashable {
    /// The issuer URL exactly as the card carries it in `iss`.
    let issuer: String

    /// Checks `issuer`; `resource` names the document that was wanted, for the error.
    init(_ issuer: String, resource: String) throws(SHCResolverError) {
        if let reason = IssuerURL.problem(in: issuer) {
            throw .unreadable(issuer: issuer, resource: resource, reason: reason)
        }
        self.issuer = issuer
    }

    /// `<iss>/.well-known/jwks.json` (rule 5).
    static func keySetURL(issuer: String) -> String {
        issuer + "/.well-known/jwks.json"
    }

    /// `<iss>/.well-known/crl/<kid>.json` (rule 41).
    static func revocationListURL(issuer: String, kid: String) -> String {
        issuer + "/.well-known/crl/" + kid + ".json"
    }

    /// Whether `kid` can be placed in a URL path: non-empty base64url, at most 256 characters.
    static func isUsableKid(_ kid: String) -> Bool {
        !kid.isEmpty && kid.utf8.count <= 256 && kid.utf8.allSatisfy(isBase64URLByte)
    }

    /// Why `text` is not an acceptable issuer URL, or nil when it is.
    static func problem(in text: String) -> String? {
        let bytes = Array(text.utf8)
        let scheme = Array("https://".utf8)
        guard bytes.count >= scheme.count,
              zip(bytes, scheme).allSatisfy({ lowercased($0) == $1 }) else {
            if text.lowercased().hasPrefix("http://") {
                return "the issuer URL uses http; SMART Health Card issuers must use https (rule 6)"
            }
            return "the issuer URL must start with https:// (rule 6)"
        }
        guard bytes.prefix(5).elementsEqual("https".utf8) else {
            return "the issuer URL's scheme must be written https in lower case"
        }
        if bytes.last == UInt8(ascii: "/") {
            return "the issuer URL must not end with / (rule 6)"
        }
        if bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            return "the issuer URL contains spaces, control characters or non-ASCII characters"
        }
        if bytes.contains(UInt8(ascii: "\\")) {
            return "the issuer URL contains a backslash"
        }
        if bytes.contains(UInt8(ascii: "?")) {
            return "the issuer URL must not have a query"
        }
        if bytes.contains(UInt8(ascii: "#")) {
            return "the issuer URL must not have a fragment"
        }
        let rest = bytes.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != UInt8(ascii: "/") }
        let path = rest.dropFirst(authority.count)
        if authority.contains(UInt8(ascii: "@")) {
            return "the issuer URL must not contain user info"
        }
        if let reason = authorityProblem(Array(authority)) {
            return reason
        }
        let lowerPath = String(decoding: path, as: UTF8.self).lowercased()
        if lowerPath.contains("%2f") || lowerPath.contains("%5c") {
            return "the issuer URL must not contain an encoded / or \\"
        }
        for segment in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            let lower = String(decoding: segment, as: UTF8.self).lowercased()
                .replacingOccurrences(of: "%2e", with: ".")
            if lower == "." || lower == ".." {
                return "the issuer URL must not contain . or .. path segments"
            }
        }
        return nil
    }

    private static func authorityProblem(_ authority: [UInt8]) -> String? {
        guard !authority.isEmpty else { return "the issuer URL has no host" }
        let port: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                return "the issuer URL's IPv6 host is not closed with ]"
            }
            let inside = authority[1..<close]
            guard !inside.isEmpty,
                  inside.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return "the issuer URL's IPv6 host is not valid"
            }
            let after = authority[(close + 1)...]
            if after.isEmpty {
                port = nil
            } else if after.first == UInt8(ascii: ":") {
                port = after.dropFirst()
            } else {
                return "the issuer URL's host is not valid"
            }
        } else {
            let colon = authority.firstIndex(of: UInt8(ascii: ":"))
            let host = authority[..<(colon ?? authority.endIndex)]
            port = colon.map { authority[($0 + 1)...] }
            guard !host.isEmpty else { return "the issuer URL has no host" }
            let labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard host.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
                  !labels.contains(where: \.isEmpty) else {
                return "the issuer URL's host is not a valid host name"
            }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(isDigit),
                  let number = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(number) else {
                return "the issuer URL's port is not a number from 1 to 65535"
            }
        }
        return nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isBase64URLByte(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
