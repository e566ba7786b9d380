import CommonSupport
import Foundation

/// Asks a person on the terminal, one question per type, like HealthKit's permission sheet.
///
/// Answers are `y`/`yes` to allow; anything else, or end of input, denies. The input and
/// output are injectable so the prompt can be tested and driven by other programs.
public struct TerminalAuthorizationProvider: AuthorizationProvider {
    let readLine: @Sendable () -> String?
    let write: @Sendable (String) -> Void

    /// Prompts on standard input and standard error.
    public init() {
        self.init(readLine: { Swift.readLine() },
                  write: { try? FileHandle.standardError.write(contentsOf: Data($0.utf8)) })
    }

    /// Prompts through the given functions.
    public init(readLine: @escaping @Sendable () -> String?, write: @escaping @Sendable (String) -> Void) {
        self.readLine = readLine
        self.write = write
    }

    public func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        // App names come from the app: strip control characters so they cannot forge the prompt.
        func printable(_ text: String) -> String {
            String(String.UnicodeScalarView(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
        }
        write("\"\(printable(request.appName))\" (\(printable(request.bundleIdentifier))) would like to access your health data.\n")
        func ask(_ verb: String, _ types: Set<String>) -> Set<String> {
            var granted = Set<String>()
            for type in types.sorted() {
                write("  Allow \(verb) \(HealthTypeNames.displayName(for: type))? [y/N] ")
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                if answer == "y" || answer == "yes" { granted.insert(type) }
            }
            return granted
        }
        let share = ask("writing", request.share)
        let read = ask("reading", request.read)
        return AuthorizationDecision(share: share, read: read)
    }

    /// Lists the matching records and asks which to share once: numbers separated by spaces or
    /// commas, `all`, or nothing (or end of input) to decline.
    public func decideVerifiableRecordShare(_ request: VerifiableRecordShareRequest) async throws -> VerifiableRecordShareDecision {
        func printable(_ text: String) -> String {
            String(String.UnicodeScalarView(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
        }
        write("\"\(printable(request.appName))\" (\(printable(request.bundleIdentifier))) asks for your verifiable health records, once:\n")
        for (index, record) in request.records.enumerated() {
            let date = ISODateText.dayString(secondsSince1970: record.relevantDate.timeIntervalSince1970)
            let items = record.itemNames.map(printable).joined(separator: ", ")
            write("  \(index + 1). \(date) \(items) (issuer \(printable(record.issuerIdentifier)))\n")
        }
        write("  Share which? [numbers, all, or nothing to decline] ")
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        if answer.isEmpty || answer == "n" || answer == "no" { return .decline }
        if answer == "all" || answer == "a" { return .share(Set(request.records.map(\.uuid))) }
        var chosen = Set<UUID>()
        for token in answer.split(whereSeparator: { $0 == " " || $0 == "," }) {
            guard let number = Int(token), request.records.indices.contains(number - 1) else { continue }
            chosen.insert(request.records[number - 1].uuid)
        }
        return chosen.isEmpty ? .decline : .share(chosen)
    }
}

/// Human names for type identifiers: `HKQuantityTypeIdentifierStepCount` → "Step Count".
enum HealthTypeNames {
    static func displayName(for identifier: String) -> String {
        let prefixes = ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier",
                        "HKCharacteristicTypeIdentifier", "HKClinicalTypeIdentifier"]
        var name = identifier
        for prefix in prefixes where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
        if identifier == HKWorkoutTypeIdentifier { return "Workouts" }
        if identifier == HKActivitySummaryTypeIdentifier { return "Activity Summaries" }
        if identifier == HKDataTypeIdentifierUserAnnotatedMedicationConcept { return "Medications" }
        if identifier == HKMedicationDoseEventTypeIdentifierMedicationDoseEvent { return "Medication Doses" }
        var words = ""
        var previous: Character?
        for character in name {
            if let previous, character.isUppercase, previous.isLowercase { words.append(" ") }
            words.append(character)
            previous = character
        }
        return words
    }
}
