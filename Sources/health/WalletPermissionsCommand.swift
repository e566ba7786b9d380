import ArgumentParser
import FHIRCore
import FhirBlocks
import FhirBlocksClient

/// `health wallet permissions --server URL --identity FILE [--json]`.
struct WalletPermissionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permissions",
        abstract: "List the permissions this wallet granted and those granted to it.")

    @OptionGroup var server: FhirBlocksServerOption
    @OptionGroup var identity: FhirBlocksIdentityOption

    @Flag(help: "Print {\"grantedByMe\": [...], \"givenToMe\": [...]} as JSON.")
    var json = false

    func run() async throws {
        let me = try identity.load()
        let (granted, given) = try await server.withClient { client in
            let wallet = WalletClient(client: client, identity: me)
            return (try await wallet.permissionsGrantedByMe(), try await wallet.permissionsGivenToMe())
        }
        FhirBlocksPermissionsPrinter.print(grantedByMe: granted, givenToMe: given, json: json)
    }
}

/// Prints the two permission lists as text or JSON.
enum FhirBlocksPermissionsPrinter {
    static func print(grantedByMe granted: [PermissionRecord], givenToMe given: [PermissionRecord], json: Bool) {
        if json {
            let object = JSONObject(members: [
                JSONMember(key: "grantedByMe", value: PermissionsResponse(permissions: granted).json.objectValue?["permissions"] ?? .array([])),
                JSONMember(key: "givenToMe", value: PermissionsResponse(permissions: given).json.objectValue?["permissions"] ?? .array([])),
            ])
            Swift.print(FhirBlocksCLI.pretty(.object(object)))
            return
        }
        Swift.print("Granted by me (\(granted.count)):")
        for record in granted { Swift.print("  " + FhirBlocksCLI.line(record)) }
        Swift.print("Given to me (\(given.count)):")
        for record in given { Swift.print("  " + FhirBlocksCLI.line(record)) }
    }
}
