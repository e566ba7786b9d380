import ArgumentParser
import Foundation
import OpenHealthKit
import SampleSignatures

/// `health store query`: lists samples of a type.
struct StoreQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "List samples of a type, newest first.",
        discussion: "Example: health store query --type heartRate --from 2026-11-20 --unit count/min --limit 20")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The type (stepCount, heartRate, sleepAnalysis, workout…).")
    var type: String

    @Option(help: "Only samples ending at or after this date (ISO 8601).")
    var from: String?

    @Option(help: "Only samples starting before this date (ISO 8601).")
    var to: String?

    @Option(help: "At most this many samples (0 for all).")
    var limit: Int = 100

    @Option(help: "Show quantities in this unit, e.g. count/min, lb, mmol<180.15588000005408>/L.")
    var unit: String?

    @Flag(help: "Oldest first.")
    var ascending = false

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Check each sample's digital signature against the trusted device keys and print the verdict (exit 1 when a signature does not verify).")
    var verifySignatures = false

    mutating func run() async throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
        let sampleType = try parseSampleType(type)
        let displayUnit = try unit.map(parseUnit)
        if let displayUnit, let quantityType = sampleType as? HKQuantityType, !quantityType.is(compatibleWith: displayUnit) {
            throw ValidationError("unit '\(displayUnit.unitString)' does not fit \(quantityType.displayName)")
        }
        let predicate = try (from != nil || to != nil)
            ? HKQuery.predicateForSamples(withStart: from.map(parseDate), end: to.map(parseDate)) : nil
        let store = try storeOptions.openStore()
        let descriptor = HKSampleQueryDescriptor(predicates: [.sample(type: sampleType, predicate: predicate)],
                                                 sortDescriptors: [SortDescriptor(\.startDate, order: ascending ? .forward : .reverse)],
                                                 limit: limit == 0 ? nil : limit)
        let samples = try await withActivity("Reading") { try await descriptor.result(for: store) }
        let verdicts = verifySignatures ? try await store.signatureVerdicts(for: samples) : []
        if json {
            print(try SampleFormatter.json(samples, unit: displayUnit, signatures: verifySignatures ? verdicts : nil))
        } else if samples.isEmpty {
            print("No \(sampleType.displayName) samples.")
        } else {
            for line in SampleFormatter.table(samples, unit: displayUnit) { print(line) }
            if verifySignatures {
                print("Signatures:")
                for (sample, verdict) in zip(samples, verdicts) { print(signatureReport(sample, verdict)) }
            }
        }
        // Refused: a sample carries a signature that is not valid (unsigned samples are not refused).
        if verdicts.contains(where: { $0 != .unsigned && !$0.isValid }) { throw ExitCode(CLIExitStatus.refused.rawValue) }
    }
}
