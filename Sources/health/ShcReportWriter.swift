import CommonSupport
import Foundation
import SmartHealthCards

/// The output of `health shc verify`, written as it goes: text (a block per card) or one JSON
/// document `{"cards": [...], "inputErrors": [...], "valid": ...}` whose cards are streamed.
///
/// Each card is formatted once, from its own report: the cost is linear in the number of cards.
struct ShcReportWriter {
    let json: Bool
    /// The UTF-8 bytes not yet written.
    private var buffer: [UInt8] = []
    private var cardsWritten = 0
    private var inputErrors: [InputError] = []
    /// The JSON report's encoder (one per use: `JSONEncoder` is not `Sendable`). Dates are written
    /// as ``isoDate(_:)`` writes them (`ISODateText`, proleptic Gregorian): Foundation's `.iso8601`
    /// strategy writes a date before 1582-10-15 in the Julian calendar.
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(isoDate(date))
        }
        return encoder
    }

    init(json: Bool) {
        self.json = json
        if json { buffer.append(string: "{\n  \"cards\" : [") }
    }

    private struct Card: Encodable {
        var input: String
        var index: Int
        var report: SHCVerificationReport
    }

    private struct InputError: Encodable {
        var input: String
        var error: String
    }

    /// An input that holds no readable card.
    mutating func inputFailure(input: String, error: String) {
        if json {
            inputErrors.append(InputError(input: input, error: error))
        } else {
            buffer.append(string: "\(input): INVALID INPUT: \(error)\n")
        }
    }

    /// One card's report, formatted (on any thread) for ``append(_:)``.
    struct FormattedCard: Sendable {
        /// The UTF-8 bytes of the text block, or of the card's JSON object without indentation.
        let text: [UInt8]
        /// Whether the card is valid.
        let isValid: Bool
    }

    /// A card formatted on the worker that verified it, or why it could not be. (Not a
    /// `Result`: the batch's output type is instantiated at run time, and `Result`'s
    /// `Failure: Error` requirement would have the runtime scan the binary's twenty thousand
    /// protocol conformances for it once per process, before the first card is verified.)
    enum Formatted: Sendable {
        /// The card's text or JSON object.
        case card(FormattedCard)
        /// The report could not be formatted (its JSON encoding failed).
        case failure(any Error)
    }

    /// Formats one card's report; `count` is how many cards its input holds (they are then
    /// numbered). Pure, so the batch verifier runs it on the worker that verified the card.
    static func format(input: String, index: Int, of count: Int, report: SHCVerificationReport, json: Bool) throws -> FormattedCard {
        if json {
            let text = String(decoding: try makeEncoder().encode(Card(input: input, index: index, report: report)), as: UTF8.self)
            return FormattedCard(text: Array(indented(text, by: "    ").utf8), isValid: report.isValid)
        }
        return FormattedCard(text: text(input: input, number: count > 1 ? index + 1 : nil, report: report), isValid: report.isValid)
    }

    /// Appends a card formatted by ``format(input:index:of:report:json:)`` with the same `json`.
    mutating func append(_ card: FormattedCard) {
        if json { buffer.append(string: cardsWritten == 0 ? "\n" : ",\n") }
        buffer.append(contentsOf: card.text)
        cardsWritten += 1
    }

    /// Writes what is buffered to standard output.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        try? FileHandle.standardOutput.write(contentsOf: Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Ends the output (the JSON document's input errors and verdict) and writes it.
    mutating func finish(valid: Bool) {
        if json {
            buffer.append(string: cardsWritten == 0 ? "],\n" : "\n  ],\n")
            if inputErrors.isEmpty {
                buffer.append(string: "  \"inputErrors\" : [],\n")
            } else {
                let errors = (try? Self.makeEncoder().encode(inputErrors)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
                buffer.append(string: "  \"inputErrors\" : " + Self.indented(errors, by: "  ").dropFirst(2) + ",\n")
            }
            buffer.append(string: "  \"valid\" : \(valid)\n}\n")
        }
        flush()
    }

    /// `text` with every line indented.
    private static func indented(_ text: String, by indent: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { indent + $0 }.joined(separator: "\n")
    }

    /// A card's block of text: its verdict, signature and issuer, revocation, summary and findings;
    /// labelled with the input, and `#number` when the input holds several cards. Written as
    /// UTF-8 into one array (a report prints thousands of these).
    static func text(input: String, number: Int?, report: SHCVerificationReport) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(512)
        text.append(string: input)
        if let number {
            text.append(" #")
            text.append(decimal: number, width: 1)
        }
        text.append(report.isValid ? ": VALID\n" : ": INVALID\n")
        text.append(report.signatureValid ? "  signature: valid; issuer: " : "  signature: not verified; issuer: ")
        text.append(string: report.claims?.iss ?? "unknown")
        if let trusted = report.issuerTrusted {
            if trusted {
                text.append(" (trusted")
                if let name = report.issuerName {
                    text.append(": ")
                    text.append(string: name)
                }
                text.append(")")
            } else {
                text.append(" (not trusted)")
            }
        }
        text.append("\n")
        if report.revoked { text.append("  revoked\n") }
        if let summary = report.summary {
            if let name = summary.subjectName {
                text.append("  subject: ")
                text.append(string: name)
                if let born = summary.birthDate {
                    text.append(", born ")
                    text.append(decimal: born.year, width: 4)
                    if let month = born.month {
                        text.append("-")
                        text.append(decimal: month, width: 2)
                    }
                    if let day = born.day {
                        text.append("-")
                        text.append(decimal: day, width: 2)
                    }
                }
                text.append("\n")
            }
            for item in summary.items {
                text.append("  ")
                text.append(string: item.kind.rawValue)
                text.append(": ")
                text.append(string: item.name)
                if let date = item.date {
                    text.append(" (")
                    appendISODate(date, to: &text)
                    text.append(")")
                }
                text.append("\n")
            }
        }
        append(report.errors, as: "error", issuer: report.claims?.iss, to: &text)
        append(report.warnings, as: "warning", issuer: report.claims?.iss, to: &text)
        return text
    }

    /// `  error [code, rule N]: message` (or `warning`) per finding; a finding repeated for many
    /// entries is written once, with the count and the first entries (``RepeatedFindings``).
    private static func append(_ findings: [SHCFinding], as severity: StaticString, issuer: String?, to text: inout [UInt8]) {
        guard !findings.isEmpty else { return }
        if findings.count == 1, findings[0].path.flatMap(RepeatedFindings.entryPlace) == nil {
            append(findings[0], suffix: "", as: severity, issuer: issuer, to: &text)
            return
        }
        for group in RepeatedFindings.grouped(findings, key: { $0.code.rawValue + "\u{0}" + $0.message }, place: { RepeatedFindings.entryPlace($0.path) }) {
            append(group.first, suffix: RepeatedFindings.suffix(count: group.count, places: group.places),
                   as: severity, issuer: issuer, to: &text)
        }
    }

    /// One finding's line. A card whose issuer's keys could not be fetched says how to give them
    /// offline.
    private static func append(_ finding: SHCFinding, suffix: String, as severity: StaticString, issuer: String?, to text: inout [UInt8]) {
        text.append("  ")
        text.append(severity)
        text.append(" [")
        text.append(string: finding.code.rawValue)
        text.append(", rule ")
        text.append(decimal: finding.rule, width: 1)
        text.append("]: ")
        text.append(string: finding.message)
        text.append(string: suffix)
        if finding.code == .resolverFailed {
            text.append(string: "; to verify offline, give the issuer's keys with --issuer \(issuer ?? "ISS")=DIR (a folder holding .well-known/jwks.json)")
        }
        text.append("\n")
    }
}

extension [UInt8] {
    /// Appends the text's UTF-8 bytes (the report's fixed words, without a `String`).
    mutating func append(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the string's UTF-8 bytes (copied from its storage when it has them contiguous).
    mutating func append(string: String) {
        if string.utf8.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) == nil {
            append(contentsOf: string.utf8)
        }
    }

    /// Appends the decimal digits of `value`, zero-padded to at least `width` characters, as C's
    /// `%0*ld` writes them: a negative number's `-` counts in the width and the zeros come after
    /// it (`-005` for -5 in 4). No `String` is created.
    mutating func append(decimal value: Int, width: Int) {
        if value >= 0, value < 10, width <= 2 {   // most of a report's numbers: one byte, or two
            if width == 2 { append(UInt8(ascii: "0")) }
            append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for Int.min's 19 digits
        let count = Swift.withUnsafeMutableBytes(of: &digits) { scratch in
            var remaining = value.magnitude, end = scratch.count
            repeat {
                end -= 1
                scratch[end] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            return scratch.count - end
        }
        let sign = value < 0 ? 1 : 0
        if value < 0 { append(UInt8(ascii: "-")) }
        if count + sign < width { append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - count - sign)) }
        Swift.withUnsafeBytes(of: &digits) { scratch in append(contentsOf: scratch[(scratch.count - count)...]) }
    }
}
