import Foundation
import SmartHealthCards

/// Human and JSON output of `health shc verify`.
enum ShcReportFormatter {
    static func text(results: [(input: String, index: Int, report: SHCVerificationReport)],
                     inputFailures: [(input: String, error: String)]) -> [String] {
        var lines: [String] = []
        for failure in inputFailures {
            lines.append("\(failure.input): INVALID INPUT: \(failure.error)")
        }
        for (input, index, report) in results {
            let label = results.filter { $0.input == input }.count > 1 ? "\(input) #\(index + 1)" : input
            lines.append("\(label): \(report.isValid ? "VALID" : "INVALID")")
            lines.append("  signature: \(report.signatureValid ? "valid" : "not verified")"
                         + "; issuer: \(report.claims?.iss ?? "unknown")"
                         + (report.issuerTrusted.map { $0 ? " (trusted\(report.issuerName.map { ": \($0)" } ?? ""))" : " (not trusted)" } ?? ""))
            if report.revoked { lines.append("  revoked") }
            if let summary = report.summary {
                if let name = summary.subjectName {
                    let born = summary.birthDate.map { date in
                        [String(format: "%04d", date.year), date.month.map { String(format: "%02d", $0) }, date.day.map { String(format: "%02d", $0) }]
                            .compactMap { $0 }.joined(separator: "-")
                    }
                    lines.append("  subject: \(name)\(born.map { ", born \($0)" } ?? "")")
                }
                for item in summary.items { lines.append("  \(item.kind.rawValue): \(item.name)\(item.date.map { " (\(isoDate($0)))" } ?? "")") }
            }
            for finding in report.errors { lines.append("  error [\(finding.code.rawValue), rule \(finding.rule)]: \(finding.message)") }
            for finding in report.warnings { lines.append("  warning [\(finding.code.rawValue), rule \(finding.rule)]: \(finding.message)") }
        }
        return lines
    }

    private struct Document: Encodable {
        struct Card: Encodable {
            var input: String
            var index: Int
            var report: SHCVerificationReport
        }
        struct Failure: Encodable {
            var input: String
            var error: String
        }
        var valid: Bool
        var cards: [Card]
        var inputErrors: [Failure]
    }

    static func json(results: [(input: String, index: Int, report: SHCVerificationReport)],
                     inputFailures: [(input: String, error: String)], valid: Bool) throws -> String {
        let document = Document(valid: valid, cards: results.map { .init(input: $0.input, index: $0.index, report: $0.report) },
                                inputErrors: inputFailures.map { .init(input: $0.input, error: $0.error) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }
}
