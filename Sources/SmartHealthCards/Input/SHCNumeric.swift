/// The `shc:/` numeric QR text (rules 47-50): each JWS character `c` becomes the two decimal
/// digits of `ord(c) − 45` (`-` is 00, `z` is 77).
///
/// This type produces and reads the *text*; the QR symbol itself (a byte-mode segment `shc:/`
/// followed by a numeric-mode segment, version ≤ 22) is drawn by the `QRCode` module.
public enum SHCNumeric {
    /// The prefix of every SMART Health Card QR text.
    public static let prefix = "shc:/"
    /// The longest JWS that fits one QR code of version 22 at error correction L (rule 48).
    public static let maximumSingleQRLength = 1195
    /// The longest JWS chunk in deprecated multi-QR chunking (rule 49).
    public static let maximumChunkLength = 1191

    /// One decoded line of QR text.
    public struct Chunk: Sendable, Hashable {
        /// The 1-based chunk index, for `shc:/C/N/…` lines.
        public var index: Int?
        /// The number of chunks, for `shc:/C/N/…` lines.
        public var total: Int?
        /// The JWS text (or the chunk's part of it).
        public var jws: String
    }

    /// `shc:/` followed by the digits of `jws`.
    public static func encode(_ jws: String) throws(SHCIssueError) -> String {
        prefix + (try digits(jws))
    }

    /// The QR texts for a card: one text when the JWS fits a single QR code (≤ 1195 characters);
    /// otherwise, only when `allowLegacyChunking` is true, deprecated balanced chunks
    /// (``legacyChunks(_:count:)``); else it throws ``SHCIssueError/tooLongForSingleQR(length:maximum:)``.
    public static func encodeForQR(_ jws: String, allowLegacyChunking: Bool = false) throws(SHCIssueError) -> [String] {
        let length = jws.utf8.count
        if length <= maximumSingleQRLength { return [try encode(jws)] }
        guard allowLegacyChunking else { throw .tooLongForSingleQR(length: length, maximum: maximumSingleQRLength) }
        return try legacyChunks(jws)
    }

    /// Deprecated multi-QR chunking (rule 49, deprecated since spec 1.3.0): `shc:/C/N/…` texts with
    /// balanced chunks of at most 1191 characters (a 1200-character JWS becomes 2 × 600).
    ///
    /// - Parameters:
    ///   - jws: the card's compact JWS.
    ///   - count: the number of chunks; by default the fewest that respect the limit.
    public static func legacyChunks(_ jws: String, count: Int? = nil) throws(SHCIssueError) -> [String] {
        let characters = Array(jws.utf8)
        let minimum = max(1, (characters.count + maximumChunkLength - 1) / maximumChunkLength)
        let chunkCount = count ?? minimum
        guard chunkCount >= minimum, chunkCount <= 99, chunkCount <= max(1, characters.count) else {
            throw .invalidChunkCount(chunkCount)
        }
        let size = (characters.count + chunkCount - 1) / chunkCount
        var texts: [String] = []
        for chunk in 0..<chunkCount {
            let start = min(chunk * size, characters.count)
            let end = min(start + size, characters.count)
            let part = String(decoding: characters[start..<end], as: UTF8.self)
            texts.append("\(prefix)\(chunk + 1)/\(chunkCount)/" + (try digits(part)))
        }
        return texts
    }

    private static func digits(_ jws: String) throws(SHCIssueError) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(jws.utf8.count * 2)
        for byte in jws.utf8 {
            guard byte >= 45, byte <= 122 else { throw .notEncodableAsNumeric }
            let value = byte - 45
            output.append(UInt8(ascii: "0") + value / 10)
            output.append(UInt8(ascii: "0") + value % 10)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes one line of QR text (`shc:/digits` or `shc:/C/N/digits`).
    public static func decode(_ line: String) throws(SHCInputError) -> Chunk {
        try decode(Array(line.utf8)[...], line: 0)
    }

    static func decode(_ bytes: ArraySlice<UInt8>, line: Int) throws(SHCInputError) -> Chunk {
        let prefixBytes = Array(prefix.utf8)
        guard bytes.count >= prefixBytes.count, bytes.prefix(prefixBytes.count).elementsEqual(prefixBytes) else {
            throw .missingQRPrefix(line: line)
        }
        var rest = bytes.dropFirst(prefixBytes.count)
        var index: Int?
        var total: Int?
        if rest.contains(UInt8(ascii: "/")) {
            func number(_ part: inout ArraySlice<UInt8>) throws(SHCInputError) -> Int {
                let digits = part.prefix { $0 != UInt8(ascii: "/") }
                guard !digits.isEmpty, digits.count <= 4, digits.count < part.count,
                      digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                    throw .malformedChunkHeader(line: line)
                }
                part = part.dropFirst(digits.count + 1)
                return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            }
            let chunkIndex = try number(&rest)
            let chunkTotal = try number(&rest)
            guard chunkTotal >= 1 else { throw .malformedChunkHeader(line: line) }
            guard chunkIndex >= 1, chunkIndex <= chunkTotal else {
                throw .chunkIndexOutOfRange(line: line, index: chunkIndex, total: chunkTotal)
            }
            index = chunkIndex
            total = chunkTotal
        }
        guard !rest.isEmpty else { throw .emptyNumericData(line: line) }
        for (offset, byte) in zip(rest.indices, rest) where byte < UInt8(ascii: "0") || byte > UInt8(ascii: "9") {
            throw .invalidNumericCharacter(line: line, offset: offset - bytes.startIndex)
        }
        guard rest.count % 2 == 0 else { throw .oddDigitCount(line: line, count: rest.count) }
        var characters: [UInt8] = []
        characters.reserveCapacity(rest.count / 2)
        var position = rest.startIndex
        var pair = 0
        while position < rest.endIndex {
            let value = Int(rest[position] - UInt8(ascii: "0")) * 10 + Int(rest[position + 1] - UInt8(ascii: "0"))
            guard value <= 77 else { throw .digitPairOutOfRange(line: line, pair: pair, value: value) }
            characters.append(UInt8(value + 45))
            position += 2
            pair += 1
        }
        return Chunk(index: index, total: total, jws: String(decoding: characters, as: UTF8.self))
    }

    /// Decodes QR text lines into cards: each unchunked line is a card; `shc:/C/N/` chunks (of one
    /// set) are joined in index order whatever order they came in. Identical repeated chunks are
    /// accepted; gaps and conflicting duplicates are errors.
    public static func decode(lines: [String]) throws(SHCInputError) -> [SHCInput.Card] {
        try assemble(lines.enumerated().map { (line, text) throws(SHCInputError) -> Chunk in
            try decode(Array(text.utf8)[...], line: line)
        })
    }

    static func assemble(_ chunks: [Chunk]) throws(SHCInputError) -> [SHCInput.Card] {
        var cards: [SHCInput.Card] = []
        var parts: [Int: String] = [:]
        var expectedTotal: Int?
        var chunkSetPosition: Int?
        for (line, chunk) in chunks.enumerated() {
            guard let index = chunk.index, let total = chunk.total, total > 1 else {
                cards.append(SHCInput.Card(jws: chunk.jws, form: .qrNumeric, chunkCount: 1))
                continue
            }
            if let expectedTotal, expectedTotal != total {
                throw .inconsistentChunkTotal(line: line, expected: expectedTotal, found: total)
            }
            expectedTotal = total
            if chunkSetPosition == nil { chunkSetPosition = cards.count }
            if let existing = parts[index] {
                guard existing == chunk.jws else { throw .conflictingChunk(index: index) }
                continue
            }
            parts[index] = chunk.jws
        }
        if let total = expectedTotal, let position = chunkSetPosition {
            let missing = (1...total).filter { parts[$0] == nil }
            guard missing.isEmpty else { throw .missingChunks(missing) }
            let jws = (1...total).compactMap { parts[$0] }.joined()
            cards.insert(SHCInput.Card(jws: jws, form: .qrNumeric, chunkCount: total), at: position)
        }
        return cards
    }
}
