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
    static func text(label: String, report: SHCVerificationReport) -> String {
        var lines: [String] = []
        lines.append("\(label): \(report.isValid ? "VALID" : "INVALID")")
        lines.append("  signature: \(report.signatureValid ? "valid" : "not verified")"
                     + "; issuer: \(report.claims?.iss ?? "unknown")"
                     + (report.issuerTrusted.map { $0 ? " (trusted\(report.issuerName.map { ": \($0)" } ?? ""))" : " (not trusted)" } ?? ""))
        if report.revoked { lines.append("  revoked") }
        if let summary = report.summary {
            if let name = summary.subjectName {
                let born = summary.birthDate.map { date in
                    [CivilCalendar.padded(date.year, width: 4), date.month.map { CivilCalendar.padded($0, width: 2) },
                     date.day.map { CivilCalendar.padded($0, width: 2) }]
                        .compactMap { $0 }.joined(separator: "-")
                }
                lines.append("  subject: \(name)\(born.map { ", born \($0)" } ?? "")")
            }
            for item in summary.items { lines.append("  \(item.kind.rawValue): \(item.name)\(item.date.map { " (\(isoDate($0)))" } ?? "")") }
        }
        for finding in report.errors { lines.append("  error [\(finding.code.rawValue), rule \(finding.rule)]: \(finding.message)") }
        for finding in report.warnings { lines.append("  warning [\(finding.code.rawValue), rule \(finding.rule)]: \(finding.message)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
