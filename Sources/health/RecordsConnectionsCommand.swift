import ArgumentParser
import FHIRCore
import Foundation
import OpenHealthKit
import RecordsSync

/// `health records connections [--remove NAME] [--json]`.
struct RecordsConnectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connections",
        abstract: "List the store's connections to SMART on FHIR servers, or forget one (--remove; its records stay).")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("Forget this connection (its tokens; the records it brought stay).", valueName: "NAME"))
    var remove: String?

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let store = try storeOptions.openStore()
        if let remove {
            guard try await store.removeHealthRecordsConnection(named: remove) else { throw InputRefused("no connection named '\(remove)'") }
            // The records stay: they are the person's, wherever they came from.
            print("removed \(remove): its tokens and sync state are forgotten; the records and health cards it brought stay in the store "
                  + "(source '\(remove)'), and no later sync replaces or deletes them")
            return
        }
        let connections = try await RecordsSynchronizer.connections(in: store)
        if json {
            var writer = JSONWriter(style: .pretty)
            writer.value(.array(connections.map { connection in
                var members = [JSONMember(key: "name", value: .string(connection.name)), JSONMember(key: "fhirBase", value: .string(connection.fhirBase)),
                               JSONMember(key: "patient", value: .string(connection.patient)), JSONMember(key: "clientId", value: .string(connection.clientID)),
                               JSONMember(key: "connectedAt", value: .string(isoDate(connection.connectedAt)))]
                if let last = connection.lastSyncAt { members.append(JSONMember(key: "lastSyncAt", value: .string(isoDate(last)))) }
                return .object(JSONObject(members: members))
            }))
            print(String(decoding: writer.bytes, as: UTF8.self))
        } else if connections.isEmpty {
            print("No connections.")
        } else {
            for connection in connections {
                let last = connection.lastSyncAt.map { "last sync \(formatDate($0))" } ?? "never synced"
                print("\(connection.name)  \(connection.fhirBase)  patient \(connection.patient)  \(last)")
            }
        }
    }
}
