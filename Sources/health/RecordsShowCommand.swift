import ArgumentParser
import FHIRCore
import Foundation
import OpenHealthKit

/// `health records show UUID`: a clinical record's FHIR resource pretty-printed, or a card's summary.
struct RecordsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one health record: a clinical record's FHIR resource, or a health card's summary.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The record's UUID (from health records list).")
    var uuid: String

    func run() async throws {
        guard let id = UUID(uuidString: uuid) else { throw UsageError("'\(uuid)' is not a UUID") }
        let store = try storeOptions.openStore()
        let types = try RecordsListCommand.types(named: nil)
        let descriptor = HKSampleQueryDescriptor(
            predicates: types.map { HKSamplePredicate<HKSample>.sample(type: $0, predicate: HKQuery.predicateForObject(with: id)) },
            sortDescriptors: [], limit: 1)
        guard let record = try await descriptor.result(for: store).first else {
            printError("Error: no health record \(id.uuidString) in this store")
            throw ExitCode(1)
        }
        for line in RecordsFormatter.detail(record) { print(line) }
    }
}
