import ArgumentParser
import Foundation
import SmartHealthCards
import SmartHealthCardsHTTPS

/// How SMART Health Cards are verified: `--issuer ISS=DIR`, `--trust-directory FILE`, `--at
/// ISO8601`, `--allow-private-issuers`. Shared by `health shc verify` and `health records import`, so a card is judged the
/// same way by both.
struct CardVerifierOptions: ParsableArguments {
    @Option(name: .customLong("issuer"), help: ArgumentHelp("Resolve issuer ISS offline from DIR.", valueName: "ISS=DIR"))
    var issuers: [String] = []

    @Option(help: ArgumentHelp("Trust the issuers of a VCI directory file (vci-issuers.json).", valueName: "FILE"))
    var trustDirectory: String?

    @Option(help: ArgumentHelp("Verify as of this instant instead of now (ISO 8601).", valueName: "ISO8601"))
    var at: String?

    @Flag(name: .customLong("allow-private-issuers"),
          help: "Fetch issuer keys from loopback, private and link-local addresses too (refused by default: a card's issuer URL is untrusted).")
    var allowPrivateIssuers = false

    /// The verifier, and the HTTPS resolver to shut down when done (created only if an issuer
    /// outside the `--issuer` folders is looked up).
    func makeVerifier() throws -> (SHCVerifier, LazyHTTPSKeyResolver) {
        try Self.makeVerifier(issuers: issuers, trustDirectory: trustDirectory, at: at, allowPrivateIssuers: allowPrivateIssuers)
    }

    /// The verifier for these option values (``makeVerifier()`` of a parsed command line, or
    /// ``ShcVerifyArguments`` read without the parser).
    static func makeVerifier(issuers: [String], trustDirectory: String?, at: String?,
                             allowPrivateIssuers: Bool) throws -> (SHCVerifier, LazyHTTPSKeyResolver) {
        var folders: [String: URL] = [:]
        for entry in issuers {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex, entry.index(after: equals) != entry.endIndex else {
                throw UsageError("--issuer takes ISS=DIR, got '\(entry)'")
            }
            let folder = URL(fileURLWithPath: String(entry[entry.index(after: equals)...]))
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw UsageError("--issuer: '\(folder.path)' is not a folder")
            }
            folders[String(entry[..<equals])] = folder
        }
        var trust: SHCTrustPolicy?
        if let trustDirectory {
            do {
                trust = .directory(try VCIDirectory.load(contentsOf: URL(fileURLWithPath: trustDirectory)))
            } catch {
                throw UsageError("--trust-directory: \(error)")
            }
        }
        let now = try at.map(parseInstant) ?? Date()
        var httpsConfiguration = HTTPSKeyResolver.Configuration()
        httpsConfiguration.cacheFolder = ShcVerifyCommand.cacheDirectory
        httpsConfiguration.allowsPrivateAddresses = allowPrivateIssuers
        let https = LazyHTTPSKeyResolver(configuration: httpsConfiguration)
        // A command is one run: each --issuer folder's keys are read once and kept (no `stat` per card).
        let resolver = CompositeKeyResolver([FolderKeyResolver(folders, followsChanges: false), https])
        return (SHCVerifier(resolver: resolver, trust: trust, now: now), https)
    }
}
