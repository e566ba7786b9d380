import ArgumentParser
import FhirBlocksClient

/// `health wallet put --server URL --identity FILE RESOURCE.json`.
struct WalletPutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Store a FHIR R4 resource in the wallet's own compartment (PUT /fhir/Type/id, or POST without an id); prints the stored resource.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Argument(help: "A FHIR JSON resource file, or - for standard input.")
    var resource: String

    func run() async throws {
        let me = try identity.load()
        let body = try FhirBlocksCLI.readJSON(resource)
        guard let type = body.objectValue?["resourceType"]?.stringValue, FhirResourceClient.isResourceType(type) else {
            throw UsageError("\(resource): not a FHIR resource (no valid resourceType)")
        }
        let stored = try await server.withClient { client in
            try await WalletClient(client: client, identity: me).store(body)
        }
        print(FhirBlocksCLI.pretty(stored))
    }
}
