import ArgumentParser
import Foundation
import OpenHealthKit

/// `health records list [--type T|verifiable] [--json]`.
struct RecordsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List clinical records and verifiable health records, newest first.",
        discussion: "Types: allergyRecord, clinicalNoteRecord, conditionRecord, coverageRecord, immunizationRecord, labResultRecord, "
            + "medicationRecord, procedureRecord, vitalSignRecord (or HKClinicalTypeIdentifier…), and verifiable.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only this clinical type, or verifiable for health cards.")
    var type: String?

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let types = try RecordsListCommand.types(named: type)
        let store = try storeOptions.openStore()
        let descriptor = HKSampleQueryDescriptor(predicates: types.map { HKSamplePredicate<HKSample>.sample(type: $0) },
                                                 sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)])
        let records = try await descriptor.result(for: store)
        if json {
            print(RecordsFormatter.listJSON(records))
        } else if records.isEmpty {
            print("No health records.")
        } else {
            for line in RecordsFormatter.table(records) { print(line) }
        }
    }

    /// The types `--type` names: one clinical type, the verifiable type, or all of them.
    static func types(named name: String?) throws -> [HKSampleType] {
        guard let name else { return HKObjectType.allClinicalTypes + [HKObjectType.verifiableClinicalRecordType()] }
        let key = name.lowercased()
        if ["verifiable", "verifiable-records", "smart-health-card", "shc"].contains(key) {
            return [HKObjectType.verifiableClinicalRecordType()]
        }
        if let type = HKObjectType.sampleType(named: name) as? HKClinicalType { return [type] }
        throw UsageError("unknown record type '\(name)': use allergyRecord, conditionRecord, immunizationRecord, labResultRecord, "
            + "medicationRecord, procedureRecord, vitalSignRecord, coverageRecord, clinicalNoteRecord or verifiable")
    }
}
