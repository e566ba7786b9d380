import CommonSupport
import ExactJSON
import Foundation
import Synchronization

/// Reads every input form a card can arrive in (rule 31), detecting the form by content:
/// compact JWS text, `.smart-health-card` files, FHIR `$health-cards-issue` `Parameters`
/// responses, `shc:/` numeric QR text (one line per QR code, legacy `shc:/C/N/` chunks in any
/// order) and `https://…#{…}` deep links.
///
/// Parsing is strict by default (rule 13: whitespace or a byte-order mark around a JWS or QR text
/// is an error); JSON documents may have JSON whitespace. Each way an input can be wrong is a
/// typed ``SHCInputError``.
public enum SHCInput {
    /// One card read from an input.
    public struct Card: Sendable, Hashable {
        /// The compact JWS.
        public var jws: String
        /// The form it came in.
        public var form: SHCInputForm
        /// How many QR chunks it was assembled from (1 when not chunked).
        public var chunkCount: Int

        /// Creates a card.
        public init(jws: String, form: SHCInputForm, chunkCount: Int = 1) {
            self.jws = jws
            self.form = form
            self.chunkCount = chunkCount
        }
    }

    /// The JWS strings of every card in `bytes`.
    public static func cards(from bytes: [UInt8], limits: SHCLimits = .default,
                             allowSurroundingWhitespace: Bool = false) throws(SHCInputError) -> [String] {
        try parse(bytes, limits: limits, allowSurroundingWhitespace: allowSurroundingWhitespace).map(\.jws)
    }

    /// Every card in `bytes`, with the form it came in.
    ///
    /// - Parameters:
    ///   - bytes: the input, in any of the forms above.
    ///   - limits: the size limits (the longest JWS, the most cards).
    ///   - allowSurroundingWhitespace: accept whitespace (and a byte-order mark) around JWS and QR
    ///     text, and blank lines between QR lines, instead of reporting ``SHCInputError/trailingCharacters(offset:)``.
    public static func parse(_ bytes: [UInt8], limits: SHCLimits = .default,
                             allowSurroundingWhitespace: Bool = false) throws(SHCInputError) -> [Card] {
        try parse(bytes, limits: limits, allowSurroundingWhitespace: allowSurroundingWhitespace, scansFiles: true)
    }

    /// ``parse(_:limits:allowSurroundingWhitespace:)``, with `scansFiles` false to read every JSON
    /// document with the tape (what the shortcut of ``SHCFileScanner`` is tested against).
    static func parse(_ bytes: [UInt8], limits: SHCLimits = .default, allowSurroundingWhitespace: Bool = false,
                      scansFiles: Bool) throws(SHCInputError) -> [Card] {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= limits.maxInputBytes else { throw .tooLarge(bytes: bytes.count, limit: limits.maxInputBytes) }
        var content = bytes[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) {
            guard allowSurroundingWhitespace else { throw .byteOrderMark }
            content = content.dropFirst(3)
        }
        let trimmed = trimmedRange(of: content)
        guard !trimmed.isEmpty else { throw .empty }
        let first = content[trimmed.lowerBound]

        if first == UInt8(ascii: "{") {
            return try parseDocument(content, form: nil, limits: limits, scansFiles: scansFiles)
        }
        if !allowSurroundingWhitespace, trimmed != content.indices {
            throw .trailingCharacters(offset: trimmed.lowerBound != content.startIndex ? content.startIndex : trimmed.upperBound)
        }
        let text = content[trimmed]
        if text.starts(with: Array(SHCNumeric.prefix.utf8)) {
            return try parseNumericLines(text, lenient: allowSurroundingWhitespace)
        }
        if text.starts(with: Array("https://".utf8)) || text.starts(with: Array("HTTPS://".utf8)) {
            return try parseDeepLink(text, limits: limits, scansFiles: scansFiles)
        }
        if text.contains(UInt8(ascii: ".")) {
            let jws = String(decoding: text, as: UTF8.self)
            try validateJWS(Array(text), card: 0)
            return [Card(jws: jws, form: .jws)]
        }
        throw .unrecognizedForm
    }

    /// The range (absolute indexes) of `bytes` without surrounding ASCII whitespace and UTF-8
    /// byte-order marks.
    static func trimmedRange(of bytes: ArraySlice<UInt8>) -> Range<Int> {
        var lower = bytes.startIndex
        var upper = bytes.endIndex
        while lower < upper {
            if isSpace(bytes[lower]) { lower += 1; continue }
            if upper - lower >= 3, bytes[lower] == 0xEF, bytes[lower + 1] == 0xBB, bytes[lower + 2] == 0xBF { lower += 3; continue }
            break
        }
        while upper > lower {
            if isSpace(bytes[upper - 1]) { upper -= 1; continue }
            if upper - lower >= 3, bytes[upper - 3] == 0xEF, bytes[upper - 2] == 0xBB, bytes[upper - 1] == 0xBF { upper -= 3; continue }
            break
        }
        return lower..<upper
    }

    /// ``trimmedRange(of:)`` of a whole array.
    static func trimmedRange(of bytes: [UInt8]) -> Range<Int> {
        trimmedRange(of: bytes[...])
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    /// Rule 13 for one JWS: three non-empty base64url segments, no padding, nothing around it.
    static func validateJWS(_ bytes: [UInt8], card: Int) throws(SHCInputError) {
        if trimmedRange(of: bytes) != bytes.indices {
            throw .trailingCharacters(offset: isSpace(bytes.first ?? 0) || bytes.first == 0xEF ? 0 : trimmedRange(of: bytes).upperBound)
        }
        do {
            try bytes.withUnsafeBufferPointer { (text) throws(CompactJWS.Problem) in try CompactJWS.validate(text) }
        } catch {
            switch error {
            case .padding: throw .base64Padding(card: card)
            case .segmentCount(let count): throw .invalidJWS(card: card, reason: "\(count) segments, expected 3")
            case .emptySegment(let segment): throw .invalidJWS(card: card, reason: "segment \(segment) is empty")
            case .invalidCharacter(let offset): throw .invalidJWS(card: card, reason: "character outside base64url at offset \(offset)")
            case .invalidLength(let segment): throw .invalidJWS(card: card, reason: "segment \(segment) has an impossible base64url length")
            case .nonCanonical(let segment): throw .invalidJWS(card: card,
                                                               reason: "segment \(segment) is not canonical base64url (stray bits in its last character)")
            }
        }
    }

    /// A health card file or a `Parameters` response, walked on the parsed tape (a file of
    /// thousands of cards builds no tree).
    private static func parseDocument(_ bytes: ArraySlice<UInt8>, form: SHCInputForm?, limits: SHCLimits,
                                      scansFiles: Bool) throws(SHCInputError) -> [Card] {
        // A file in its usual shape is read without the tape (its arrays and objects nest two deep).
        if scansFiles, limits.maxJSONDepth >= 2, let cards = scannedCards(bytes, form: form ?? .file) { return cards }
        let tape: JSONTape
        do {
            tape = try limits.parseJSONTape(Array(bytes))
        } catch {
            throw .invalidJSON(error)
        }
        guard tape.kind(0) == .object else { throw form == .deepLink ? .invalidDeepLink : .notAHealthCardDocument }
        var credentials: [Int] = []
        let detectedForm: SHCInputForm
        if let list = tape.memberValue(of: 0, named: "verifiableCredential") {
            guard tape.kind(list) == .array else { throw .invalidCredentialList }
            guard tape.count(list) > 0 else { throw .noCredentials }
            credentials.reserveCapacity(tape.count(list))
            tape.forEachElement(of: list) { _, element in credentials.append(element) }
            detectedForm = form ?? .file
        } else if form == nil, let type = tape.memberValue(of: 0, named: "resourceType"),
                  tape.isString(type), tape.stringEquals(type, "Parameters") {
            detectedForm = .parameters
            if let parameters = tape.memberValue(of: 0, named: "parameter") {
                guard tape.kind(parameters) == .array else { throw .invalidCredentialList }
                var malformed = false
                tape.forEachElement(of: parameters) { _, parameter in
                    guard !malformed else { return }
                    guard tape.kind(parameter) == .object, let name = tape.memberValue(of: parameter, named: "name"),
                          tape.isString(name) else {
                        malformed = true
                        return
                    }
                    guard tape.stringEquals(name, "verifiableCredential") else { return }
                    guard let value = tape.memberValue(of: parameter, named: "valueString") else {
                        malformed = true
                        return
                    }
                    credentials.append(value)
                }
                if malformed { throw .invalidCredentialList }
            }
        } else {
            throw form == .deepLink ? .invalidDeepLink : .notAHealthCardDocument
        }
        return try cards(of: credentials, in: tape, form: detectedForm)
    }

    /// The cards of the credential nodes, in order; the problem of the first credential that has
    /// one is thrown. A document of many cards is checked on every core, in runs of neighbouring
    /// credentials (checking each JWS's syntax is most of the time it takes to read one).
    private static func cards(of credentials: [Int], in tape: JSONTape, form: SHCInputForm) throws(SHCInputError) -> [Card] {
        var cards: [Card] = []
        cards.reserveCapacity(credentials.count)
        // Every run before the first that failed read all its cards: its problem is the first.
        for result in inRuns(of: credentials.count, { run in Self.cards(credentials[run], in: tape, form: form) }) {
            cards += try result.get()
        }
        return cards
    }

    /// `work` done on runs of neighbouring positions of `0..<count`, its outputs in order: one run
    /// per core (at most 16) when there are 512 positions or more, else one run on this thread.
    private static func inRuns<Output: Sendable>(of count: Int, _ work: @Sendable (Range<Int>) -> Output) -> [Output] {
        let runs = count >= 512 ? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 16)) : 1
        guard runs > 1 else { return [work(0..<count)] }
        let bounds = (0...runs).map { $0 * count / runs }
        // One slot per run (not a dictionary by run: `[Int: Output]` has the runtime look up
        // `Int: Hashable` among the binary's conformances once per process, in this pass).
        let done = Mutex<[Output?]>(Array(repeating: nil, count: runs))
        DispatchQueue.concurrentPerform(iterations: runs) { run in
            let output = work(bounds[run]..<bounds[run + 1])
            done.withLock { $0[run] = output }
        }
        return done.withLock { outputs in outputs.compactMap { $0 } }
    }

    /// The cards of a document that ``SHCFileScanner`` reads, when each of its strings is a JWS
    /// whose syntax passes (so the strings hold no escape and are their bytes): exactly the cards
    /// the tape would give. Nil for any other document, or when a string fails, so that the tape
    /// reads it and reports its first problem as before. The strings are checked on every core,
    /// in runs of neighbouring cards, as ``cards(of:in:form:)`` checks the tape's.
    private static func scannedCards(_ bytes: ArraySlice<UInt8>, form: SHCInputForm) -> [Card]? {
        guard let ranges = bytes.withUnsafeBufferPointer({ SHCFileScanner.credentialRanges(in: $0) }) else { return nil }
        /// The cards of `ranges[run]`, or nil when a string is not a valid JWS.
        @Sendable func cards(_ run: Range<Int>) -> [Card]? {
            bytes.withUnsafeBufferPointer { buffer -> [Card]? in
                var cards: [Card] = []
                cards.reserveCapacity(run.count)
                for span in ranges[run] {
                    let text = UnsafeBufferPointer(rebasing: buffer[span.start..<span.end])
                    guard (try? CompactJWS.validate(text)) != nil else { return nil }
                    cards.append(Card(jws: String(decoding: text, as: UTF8.self), form: form))
                }
                return cards
            }
        }
        var all: [Card] = []
        all.reserveCapacity(ranges.count)
        for run in inRuns(of: ranges.count, cards) {
            guard let run else { return nil }
            all += run
        }
        return all
    }

    /// The cards of a run of credential nodes (indexed by position in the document), or the
    /// problem of the first that has one.
    private static func cards(_ credentials: ArraySlice<Int>, in tape: JSONTape, form: SHCInputForm) -> Result<[Card], SHCInputError> {
        var cards: [Card] = []
        cards.reserveCapacity(credentials.count)
        for position in credentials.indices {
            let credential = credentials[position]
            guard tape.isString(credential) else { return .failure(.credentialNotAString(card: position)) }
            do throws(SHCInputError) {
                try validateJWS(tape.withUTF8(ofString: credential) { Array($0) }, card: position)
            } catch {
                return .failure(error)
            }
            cards.append(Card(jws: tape.string(at: credential), form: form))
        }
        return .success(cards)
    }

    /// One or more `shc:/` lines separated by LF or CRLF.
    private static func parseNumericLines(_ text: ArraySlice<UInt8>, lenient: Bool) throws(SHCInputError) -> [Card] {
        var chunks: [SHCNumeric.Chunk] = []
        var lineNumber = 0
        for rawLine in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            defer { lineNumber += 1 }
            var line = rawLine
            if line.last == 0x0D { line = line.dropLast() }
            let trimmed = trimmedRange(of: line)
            if trimmed != line.indices {
                guard lenient else {
                    throw .trailingCharacters(offset: trimmed.isEmpty || trimmed.lowerBound != line.startIndex
                        ? line.startIndex : trimmed.upperBound)
                }
                line = line[trimmed]
            }
            if line.isEmpty {
                guard lenient else { throw .trailingCharacters(offset: line.startIndex) }
                continue
            }
            chunks.append(try SHCNumeric.decode(line, line: lineNumber))
        }
        let cards = try SHCNumeric.assemble(chunks)
        for (position, card) in cards.enumerated() {
            try validateJWS(Array(card.jws.utf8), card: position)
        }
        return cards
    }

    /// `https://…#<percent-encoded {"verifiableCredential":[…]}>` (rule 39).
    private static func parseDeepLink(_ text: ArraySlice<UInt8>, limits: SHCLimits, scansFiles: Bool) throws(SHCInputError) -> [Card] {
        guard let hash = text.firstIndex(of: UInt8(ascii: "#")) else { throw .invalidDeepLink }
        let fragment = String(decoding: text[(hash + 1)...], as: UTF8.self)
        guard let decoded = fragment.removingPercentEncoding, decoded.hasPrefix("{") else { throw .invalidDeepLink }
        return try parseDocument(Array(decoded.utf8)[...], form: .deepLink, limits: limits, scansFiles: scansFiles)
    }
}
