import CommonSupport
import Foundation
import SmartHealthCards

/// The output of `health shc verify`, written as it goes: text (a block per card) or one JSON
/// document `{"cards": [...], "inputErrors": [...], "valid": ...}` whose cards are streamed.
///
/// Each card is formatted once, from its own report: the cost is linear in the number of cards.
struct ShcReportWriter {
    let json: Bool
    private var buffer = ""
    private var cardsWritten = 0
    private var inputErrors: [InputError] = []
    /// The JSON report's encoder (one per use: `JSONEncoder` is not `Sendable`).
    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    init(json: Bool) {
        self.json = json
        if json { buffer = "{\n  \"cards\" : [" }
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
            buffer += "\(input): INVALID INPUT: \(error)\n"
        }
    }

    /// One card's report, formatted (on any thread) for ``append(_:)``.
    struct FormattedCard: Sendable {
        /// The text block, or the card's JSON object without indentation.
        let text: String
        /// Whether the card is valid.
        let isValid: Bool
    }

    /// Formats one card's report; `count` is how many cards its input holds (they are then
    /// numbered). Pure, so the batch verifier runs it on the worker that verified the card.
    static func format(input: String, index: Int, of count: Int, report: SHCVerificationReport, json: Bool) throws -> FormattedCard {
        if json {
            let text = String(decoding: try makeEncoder().encode(Card(input: input, index: index, report: report)), as: UTF8.self)
            return FormattedCard(text: indented(text, by: "    "), isValid: report.isValid)
        }
        return FormattedCard(text: text(label: count > 1 ? "\(input) #\(index + 1)" : input, report: report), isValid: report.isValid)
    }

    /// Appends a card formatted by ``format(input:index:of:report:json:)`` with the same `json`.
    mutating func append(_ card: FormattedCard) {
        if json { buffer += cardsWritten == 0 ? "\n" : ",\n" }
        buffer += card.text
        cardsWritten += 1
    }

    /// Writes what is buffered to standard output.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }

    /// Ends the output (the JSON document's input errors and verdict) and writes it.
    mutating func finish(valid: Bool) {
        if json {
            buffer += cardsWritten == 0 ? "],\n" : "\n  ],\n"
            if inputErrors.isEmpty {
                buffer += "  \"inputErrors\" : [],\n"
            } else {
                let errors = (try? Self.makeEncoder().encode(inputErrors)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
                buffer += "  \"inputErrors\" : " + Self.indented(errors, by: "  ").dropFirst(2) + ",\n"
            }
            buffer += "  \"valid\" : \(valid)\n}\n"
        }
        flush()
    }

    /// `text` with every line indented.
    private static func indented(_ text: String, by indent: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { indent + $0 }.joined(separator: "\n")
    }

    /// A card's block of text: its verdict, signature and issuer, revocation, summary and findings.
    /// Written into one string (a report prints thousands of these).
    static func text(label: String, report: SHCVerificationReport) -> String {
        var text = ""
        text.reserveCapacity(384)
        text += label
        text += report.isValid ? ": VALID\n" : ": INVALID\n"
        text += report.signatureValid ? "  signature: valid; issuer: " : "  signature: not verified; issuer: "
        text += report.claims?.iss ?? "unknown"
        if let trusted = report.issuerTrusted {
            if trusted {
                text += " (trusted"
                if let name = report.issuerName {
                    text += ": "
                    text += name
                }
                text += ")"
            } else {
                text += " (not trusted)"
            }
        }
        text += "\n"
        if report.revoked { text += "  revoked\n" }
        if let summary = report.summary {
            if let name = summary.subjectName {
                text += "  subject: "
                text += name
                if let born = summary.birthDate {
                    text += ", born "
                    text += CivilCalendar.padded(born.year, width: 4)
                    if let month = born.month {
                        text += "-"
                        text += CivilCalendar.padded(month, width: 2)
                    }
                    if let day = born.day {
                        text += "-"
                        text += CivilCalendar.padded(day, width: 2)
                    }
                }
                text += "\n"
            }
            for item in summary.items {
                text += "  "
                text += item.kind.rawValue
                text += ": "
                text += item.name
                if let date = item.date {
                    text += " ("
                    text += isoDate(date)
                    text += ")"
                }
                text += "\n"
            }
        }
        for finding in report.errors { append(finding, as: "error", to: &text) }
        for finding in report.warnings { append(finding, as: "warning", to: &text) }
        return text
    }

    /// `  error [code, rule N]: message` (or `warning`).
    private static func append(_ finding: SHCFinding, as severity: String, to text: inout String) {
        text += "  "
        text += severity
        text += " ["
        text += finding.code.rawValue
        text += ", rule "
        text += String(finding.rule)
        text += "]: "
        text += finding.message
        text += "\n"
    }
}
