/// Why pasted text is not a card.
public enum PastedCardTextError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing but white space.
    case empty
    /// A line that is neither `shc:/…` nor a compact JWS (the line's number, from 1).
    case notCardText(line: Int)
    /// More text than any card needs.
    case tooLong

    public var description: String {
        switch self {
        case .empty: "nothing was pasted"
        case .notCardText(let line): "line \(line) of the pasted text is neither shc:/ text nor a card's JWS"
        case .tooLong: "the pasted text is longer than any health card (\(PastedCardText.maximumLength / 1024) KB)"
        }
    }
}

/// Text pasted into the Health cards page: one card's `shc:/` text (a chunked card: its chunks,
/// one per line or separated by spaces), a compact JWS, or a `https://…#shc:/…` link. This only tidies the paste (white space,
/// a `shc:/` prefix in capitals, as a QR reader may give it); SmartHealthCards' `SHCInput` reads it.
public enum PastedCardText {
    /// The longest paste accepted, in bytes.
    public static let maximumLength = 256 * 1024

    /// The pasted text as the bytes `SHCInput` reads: each `shc:/` chunk or JWS on its own line.
    public static func normalize(_ text: String) throws(PastedCardTextError) -> [UInt8] {
        guard text.utf8.count <= maximumLength else { throw .tooLong }
        var lines: [String] = []
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            for token in line.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                if token.lowercased().hasPrefix("shc:/") {
                    lines.append("shc:/" + token.dropFirst(5))
                } else if isCompactJWS(token) || token.lowercased().hasPrefix("https://") {
                    lines.append(String(token))
                } else {
                    throw .notCardText(line: number + 1)
                }
            }
        }
        guard !lines.isEmpty else { throw .empty }
        return Array(lines.joined(separator: "\n").utf8)
    }

    /// Three non-empty base64url segments separated by dots.
    static func isCompactJWS(_ token: Substring) -> Bool {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        return segments.count == 3 && segments.allSatisfy { segment in
            !segment.isEmpty && segment.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
            }
        }
    }
}
