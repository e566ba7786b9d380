import ArgumentParser
import Foundation
import HealthPresentation
import OpenHealthKit
import SampleSignatures

/// `health store query`: lists samples of a type, or activity summaries, page by page.
struct StoreQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "List samples of a type (or activity summaries), newest first.",
        discussion: """
            Every kind the store keeps: quantities, categories, correlations (blood pressure as one reading), workouts (with \
            their routes), workout routes, clinical records (allergyRecord, labResultRecord…), verifiable clinical records, \
            and activity summaries (--type activitySummary). Samples are read and written a page at a time, so a query over \
            a whole history holds one page in memory; --json writes one JSON array.
            Example: health store query --type heartRate --from 2026-11-20 --unit count/min --limit 20
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The type (stepCount, heartRate, bloodPressure, sleepAnalysis, workout, labResultRecord, activitySummary…).")
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

    @Option(help: .hidden)
    var pageSize: Int = 1000

    mutating func run() async throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
        guard pageSize > 0 else { throw ValidationError("--page-size must be 1 or more") }
        let start = try from.map(parseDate)
        let end = try to.map(parseDate)
        if ActivitySummaryListing.names(type) {
            guard unit == nil, !verifySignatures else {
                throw ValidationError("activity summaries have no --unit and no signatures")
            }
            try await listActivitySummaries(from: start, to: end)
            return
        }
        let sampleType = try parseSampleType(type)
        let displayUnit = try unit.map(parseUnit)
        if let displayUnit, let quantityType = sampleType as? HKQuantityType, !quantityType.is(compatibleWith: displayUnit) {
            throw ValidationError("unit '\(displayUnit.unitString)' does not fit \(quantityType.displayName)")
        }
        let predicate = (start != nil || end != nil) ? HKQuery.predicateForSamples(withStart: start, end: end) : nil
        let store = try storeOptions.openStore()
        // Values in the units the owner chose (Settings on the page), as `store add` and `stats` show them.
        let formatter = try await HealthFormatter.forStore(store, types: [sampleType])
        // Doses name their medication as the owner's list does (not by its concept identifier).
        var medications: [HKHealthConceptIdentifier: String] = [:]
        if sampleType == HKObjectType.medicationDoseEventType() {
            for tracked in try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store) {
                medications[tracked.medication.identifier] = tracked.medication.displayText
            }
        }
        let pages = SamplePages(store: store, type: sampleType, predicate: predicate, ascending: ascending, limit: limit, pageSize: pageSize)
        var writer = json ? JSONArrayWriter() : nil
        var written = 0
        var refused = false
        let verify = verifySignatures
        _ = try await withActivity("Reading") {
            try await pages.forEachPage { page in
                let routes = try await QueryOutput.routes(of: page, in: store)
                let verdicts: [SampleSignatureVerdict?] = verify ? try await store.signatureVerdicts(for: page) : page.map { _ in nil }
                if verdicts.contains(where: { $0.map { $0 != .unsigned && !$0.isValid } ?? false }) { refused = true }
                if writer != nil {
                    let objects = zip(page, verdicts).map { sample, verdict in
                        var object = QueryOutput.jsonObject(sample, unit: displayUnit, routes: routes[sample.uuid] ?? [], formatter: formatter,
                                                            medications: medications)
                        if let verdict { object["signature"] = verdict.label }
                        return object
                    }
                    try writer?.append(contentsOf: objects)
                } else {
                    let lines = QueryOutput.lines(page, unit: displayUnit, routes: routes, formatter: formatter, medications: medications)
                    for ((sample, verdict), line) in zip(zip(page, verdicts), lines) {
                        print(line)
                        // The verdict under its sample, indented.
                        if let verdict { print("  " + signatureReport(sample, verdict)) }
                    }
                }
                written += page.count
            }
        }
        if let writer {
            writer.finish()
        } else if written == 0 {
            print("No \(sampleType.displayName) samples.")
        }
        // Refused: a sample carries a signature that is not valid (unsigned samples are not refused).
        if refused { throw ExitCode(CLIExitStatus.refused.rawValue) }
    }

    /// Lists activity summaries, newest day first unless `--ascending`, at most `--limit`.
    private func listActivitySummaries(from start: Date?, to end: Date?) async throws {
        let store = try storeOptions.openStore()
        var summaries = try await withActivity("Reading") { try await ActivitySummaryListing.read(store, from: start, to: end) }
        if !ascending { summaries.reverse() }
        if limit > 0, summaries.count > limit { summaries.removeLast(summaries.count - limit) }
        if json {
            var writer = JSONArrayWriter()
            try writer.append(contentsOf: summaries.map(ActivitySummaryListing.jsonObject))
            writer.finish()
        } else if summaries.isEmpty {
            print("No activity summaries.")
        } else {
            for summary in summaries { print(ActivitySummaryListing.line(summary)) }
        }
    }
}
