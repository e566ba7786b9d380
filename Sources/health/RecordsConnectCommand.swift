import ArgumentParser
import Foundation
import NIOSSL
import OpenHealthKit
import RecordsSync

/// `health records connect FHIR-BASE [--name NAME] [--client-id ID] [--scope …]`.
struct RecordsConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect the store to a SMART on FHIR server (standalone launch with PKCE); the connection is sealed in the store.",
        discussion: """
            Discovers the server's SMART endpoints, registers a client (RFC 7591) unless --client-id is given, prints the \
            authorize URL (and opens it when a graphical session has xdg-open), waits for the redirect on \
            http://127.0.0.1:PORT/callback, exchanges the code and saves the connection: the server, the patient and the \
            tokens, sealed in the store. Connecting again under the same name renews the connection. An https server's \
            certificate is checked against the system's trust store (or the PEM bundle SSL_CERT_FILE names), and against \
            --ca-cert, which is kept with the connection so that its syncs trust the same authority.
            Exit status: 0 connected, 1 refused (declined approval, refused code), 2 for usage errors or a server that \
            could not be reached.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The FHIR base URL (http or https).", valueName: "FHIR-BASE"))
    var fhirBase: String

    @Option(help: ArgumentHelp("The connection's name (default: the server's host and port).", valueName: "NAME"))
    var name: String?

    @Option(help: ArgumentHelp("A client id registered beforehand (default: register one).", valueName: "ID"))
    var clientId: String?

    @Option(help: ArgumentHelp("A scope to ask for (repeat, or space separated; "
                                   + "default: launch/patient offline_access and read/search of the Patient and the clinical types).",
                               valueName: "SCOPE"))
    var scope: [String] = []

    @Option(help: ArgumentHelp("How long to wait for the approval, in seconds.", valueName: "SECONDS"))
    var timeout = 900

    @Option(name: .customLong("ca-cert"),
            help: ArgumentHelp("Also trust the certificate authorities of this PEM file for the server (kept with the connection for its syncs).",
                               valueName: "PEM"))
    var caCert: String?

    func run() async throws {
        guard let url = URL(string: fhirBase), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw UsageError("FHIR-BASE must be an http or https URL, got '\(fhirBase)'")
        }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty { throw UsageError("--name must not be empty") }
        guard timeout > 0 else { throw UsageError("--timeout must be positive") }
        let scopes = scope.flatMap { $0.split(separator: " ").map(String.init) }
        var pem: String?
        var trustRoots: [NIOSSLCertificate] = []
        if let caCert {
            guard let data = FileManager.default.contents(atPath: caCert) else { throw UsageError("--ca-cert: '\(caCert)' cannot be read") }
            let text = String(decoding: data, as: UTF8.self)
            do {
                trustRoots = try SMARTHTTP.certificates(pem: text)
            } catch {
                throw UsageError("--ca-cert: \(error)")
            }
            pem = text
        }
        let store = try storeOptions.openStore()
        let http = SMARTHTTP(additionalTrustRoots: trustRoots)
        let connector = RecordsConnector(store: store, http: http)
        let options = RecordsConnector.Options(name: name, clientID: clientId, scope: scopes.isEmpty ? nil : scopes.joined(separator: " "),
                                               callbackTimeout: .seconds(timeout), caCertificatesPEM: pem)
        let result: Result<RecordsConnection, RecordsSyncError>
        do {
            result = .success(try await connector.connect(fhirBase: fhirBase, options: options) { url in
                // Written at once (not buffered): whoever reads the pipe needs the URL now.
                try? FileHandle.standardOutput.write(contentsOf: Data("Open this address and approve the connection (with your wallet):\n\(url)\n".utf8))
                BrowserOpener.open(url)
            })
        } catch {
            result = .failure(error)
        }
        try? await http.shutdown()
        switch result {
        case .success(let connection):
            print("connected \(connection.name): patient \(connection.patient) at \(connection.fhirBase)")
        case .failure(let error):
            try RecordsSyncFailure.exit(error)
        }
    }
}

/// Opens a URL in the person's browser when there is a graphical session (DISPLAY or
/// WAYLAND_DISPLAY set) and `xdg-open` exists; otherwise does nothing (the URL is printed).
enum BrowserOpener {
    static func open(_ url: String) {
        let environment = ProcessInfo.processInfo.environment
        guard !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else { return }
        let paths = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/xdg-open" }
        guard let opener = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}

/// How a failed connect or sync ends: the reason on standard error, exit 2 when the server
/// could not be reached or read, 1 when it refused.
enum RecordsSyncFailure {
    static func exit(_ error: RecordsSyncError) throws -> Never {
        printError("Error: \(error)")
        switch error {
        case .otherPerson, .patientUnreadable:
            printError("To sync this connection into this store anyway, give --allow-other-person.")
            throw ExitCode(1)
        case .transport, .discovery: throw ExitCode(2)
        default: throw ExitCode(1)
        }
    }
}
