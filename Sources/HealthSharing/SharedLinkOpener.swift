import ExactJSON
import Foundation
import HealthRecords
import OpenHealthKit
import RecordsSync
import SmartHealthCards
import SmartHealthLinks

/// Why a shared link could not be opened or its files stored, in words a person reads.
public enum SharedLinkOpenError: Error, Sendable, CustomStringConvertible {
    /// The text is not a `shlink:/` link, nor an address ending in `#shlink:/…`, or its payload is
    /// not readable.
    case notALink(String)
    /// The link's server refused (a wrong passcode, a link no longer active, an expired link) or
    /// what it sent is not usable (a file that does not decrypt, a manifest that is not valid).
    case refused(SHLReceiveError)
    /// The link's server cannot be reached.
    case unreachable(String)
    /// Storing the files failed (the store's error).
    case importFailed(any Error)

    public var description: String {
        switch self {
        case .notALink(let reason): reason
        case .refused(let error): error.description
        case .unreachable(let reason): "The server cannot be reached: \(reason)."
        case .importFailed(let error): "The files could not be stored: \(error)"
        }
    }
}

/// What one file of an opened link holds: its cards with their verdicts, or its FHIR resources
/// counted by type.
public struct SharedLinkFileReport: Sendable {
    /// The file's place in the link, from 1.
    public var number: Int
    /// The file's content type (the manifest's, else the JWE's `cty`).
    public var contentType: String?
    /// The decrypted file's size in bytes.
    public var bytes: Int
    /// For a card file: each card's verification report.
    public var cards: [SHCVerificationReport]?
    /// For a FHIR file: the resource's type (`Bundle`, …).
    public var resourceType: String?
    /// For a FHIR Bundle: its `type` (`document`, `collection`, …).
    public var bundleType: String?
    /// For a FHIR Bundle: how many resources of each type its entries hold.
    public var resources: [String: Int]?
    /// Whether the file is what its content type says, and each of its cards verifies.
    public var valid: Bool
    /// Why the file is not valid, when it is not a card's verdict (for example a card file that
    /// holds no card).
    public var problem: String?
}

/// A link opened: its payload, its decrypted files, and what each holds.
public struct OpenedSharedLink: Sendable {
    /// The link as parsed.
    public var link: SHLinkPayload
    /// The decrypted files, in the manifest's order.
    public var files: [SHLReceivedFile]
    /// What each file holds, in the same order.
    public var reports: [SharedLinkFileReport]
    /// Whether every file is valid (each card verifies, each FHIR file is a resource).
    public var allValid: Bool { reports.allSatisfy(\.valid) }
}

/// Opens SMART Health Links as a receiver: fetches the manifest (or a `U` link's single file)
/// over the application's HTTP client, decrypts the files, verifies each card as `health shc
/// verify` does, counts each FHIR Bundle's resources by type, and stores the files through the
/// importer of `health records import`. `health share open` and the web page's "Open a shared
/// link" both use it.
public struct SharedLinkOpener: Sendable {
    /// How cards are verified.
    public var verifier: SHCVerifier
    /// How the link's server is reached; nil: the application's HTTP client (TLS 1.2 or later,
    /// redirects not followed, bodies capped).
    public var transport: (any SHLTransport)?

    /// An opener.
    /// - Parameters:
    ///   - verifier: How cards are verified.
    ///   - transport: How the link's server is reached; nil for the application's HTTP client.
    public init(verifier: SHCVerifier, transport: (any SHLTransport)? = nil) {
        self.verifier = verifier
        self.transport = transport
    }

    /// The link in `text`: a `shlink:/` link or an address ending in `#shlink:/…` (surrounding
    /// white space ignored).
    /// - Parameter text: The text a person pasted or a QR code held.
    /// - Returns: The link's payload.
    public static func parse(_ text: String) throws(SharedLinkOpenError) -> SHLinkPayload {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.contains(SHLink.prefix) else {
            throw .notALink("This is not a SMART Health Link: it should start with shlink:/ or end in #shlink:/….")
        }
        do {
            return try SHLink.parse(trimmed)
        } catch {
            throw .notALink(error.description)
        }
    }

    /// The first of `texts` (the lines of a file, or the texts of the QR codes in an image) that
    /// holds a link, else the first of them.
    /// - Parameter texts: The candidate texts.
    /// - Returns: The text to give ``parse(_:)``.
    public static func linkText(among texts: [String]) -> String {
        texts.first { $0.contains(SHLink.prefix) } ?? texts.first ?? ""
    }

    /// Fetches and decrypts the link's files and describes each.
    /// - Parameters:
    ///   - link: The link.
    ///   - recipient: Who opens it, as the person who shared it sees in their log.
    ///   - passcode: The passcode, for a link with flag `P`.
    ///   - now: The time the link's expiry and the cards are judged at (the verifier's own time
    ///     judges the cards).
    /// - Returns: The files and their reports.
    public func open(_ link: SHLinkPayload, recipient: String, passcode: String?, now: Date = Date()) async throws(SharedLinkOpenError)
        -> OpenedSharedLink {
        let files: [SHLReceivedFile]
        if let transport {
            files = try await Self.receive(link, transport: transport, recipient: recipient, passcode: passcode, now: now)
        } else {
            let http = SMARTHTTP(timeout: .seconds(30), maximumBody: SHLFile.defaultMaximumSize / 3 * 4 + 65_536)
            let received: Result<[SHLReceivedFile], SharedLinkOpenError>
            do {
                received = .success(try await Self.receive(link, transport: SMARTHTTPTransport(http: http), recipient: recipient,
                                                           passcode: passcode, now: now))
            } catch {
                received = .failure(error)
            }
            try? await http.shutdown()
            files = try received.get()
        }
        var reports: [SharedLinkFileReport] = []
        for (index, file) in files.enumerated() {
            reports.append(await Self.describe(file, number: index + 1, verifier: verifier))
        }
        return OpenedSharedLink(link: link, files: files, reports: reports)
    }

    private static func receive(_ link: SHLinkPayload, transport: any SHLTransport, recipient: String, passcode: String?,
                                now: Date) async throws(SharedLinkOpenError) -> [SHLReceivedFile] {
        do {
            return try await SHLReceiver(transport: transport).open(link, recipient: recipient, passcode: passcode, now: now)
        } catch {
            if case .unreachable(let reason) = error { throw .unreachable(reason) }
            throw .refused(error)
        }
    }

    /// Stores the cards and FHIR files of an opened link through the importer of `health records
    /// import` (a card that does not verify is never stored).
    /// - Parameters:
    ///   - opened: The opened link.
    ///   - store: The person's store.
    ///   - now: The time the records are stored at.
    ///   - allowOtherPerson: Whether records of a Patient other than the store's owner are stored.
    /// - Returns: The importer's report.
    public func importFiles(_ opened: OpenedSharedLink, into store: HKHealthStore, now: Date = Date(),
                            allowOtherPerson: Bool = false) async throws(SharedLinkOpenError) -> HealthRecordImportReport {
        let importer = HealthRecordImporter(store: store, verifier: verifier,
                                            options: .init(sourceName: opened.link.label ?? "SMART Health Link", now: now,
                                                           allowOtherPerson: allowOtherPerson))
        var report = HealthRecordImportReport()
        for (index, file) in opened.files.enumerated()
        where [SHLContentType.smartHealthCard, SHLContentType.fhirJSON].contains(SHLContentType.mediaType(of: Self.contentType(of: file))) {
            do {
                try await importer.importInput(file.content, named: "file \(index + 1)", into: &report)
            } catch {
                throw .importFailed(error)
            }
        }
        return report
    }

    /// What a file holds: its cards verified, or its FHIR resources counted by type.
    /// - Parameters:
    ///   - file: The decrypted file.
    ///   - number: Its place in the link, from 1.
    ///   - verifier: How its cards are verified.
    /// - Returns: The file's report.
    public static func describe(_ file: SHLReceivedFile, number: Int, verifier: SHCVerifier) async -> SharedLinkFileReport {
        let contentType = contentType(of: file)
        var report = SharedLinkFileReport(number: number, contentType: contentType, bytes: file.content.count, valid: true)
        switch SHLContentType.mediaType(of: contentType) {
        case SHLContentType.smartHealthCard?:
            let cards: [SHCInput.Card]
            do {
                cards = try SHCInput.parse(file.content)
            } catch {
                report.valid = false
                report.problem = "not a card file (\(error))"
                return report
            }
            var verdicts: [SHCVerificationReport] = []
            await verifier.verifyAll(cards) { _, chunk in verdicts.append(contentsOf: chunk) }
            report.cards = verdicts
            report.valid = verdicts.allSatisfy(\.isValid)
        case SHLContentType.fhirJSON?:
            guard let resource = try? JSONParser.parse(file.content), let type = resource["resourceType"]?.stringValue else {
                report.valid = false
                report.problem = "not a FHIR resource"
                return report
            }
            report.resourceType = type
            if type == "Bundle" {
                var counts: [String: Int] = [:]
                for entry in resource["entry"]?.arrayValue ?? [] {
                    if let entryType = entry["resource"]?["resourceType"]?.stringValue { counts[entryType, default: 0] += 1 }
                }
                report.resources = counts
                report.bundleType = resource["type"]?.stringValue
            }
        default:
            break
        }
        return report
    }
}

extension SharedLinkOpener {
    /// A file's content type: the manifest's or the JWE's `cty`; without either (the IG's own `U`
    /// link example encrypts its IPS Bundle without `cty`), read from the content: a JSON object
    /// with `verifiableCredential` is a card file, one with `resourceType` a FHIR resource.
    static func contentType(of file: SHLReceivedFile) -> String? {
        if let contentType = file.contentType { return contentType }
        guard let object = (try? JSONParser.parse(file.content))?.objectValue else { return nil }
        if object["verifiableCredential"] != nil { return SHLContentType.smartHealthCard }
        if object["resourceType"]?.stringValue != nil { return SHLContentType.fhirJSON }
        return nil
    }
}

/// The application's HTTP client (RecordsSync's, redirects not followed, bodies capped, TLS 1.2 or
/// later against the system's or `SSL_CERT_FILE`'s authorities) as a links receiver's transport.
struct SMARTHTTPTransport: SHLTransport {
    let http: SMARTHTTP

    func postJSON(_ url: String, json: [UInt8]) async throws -> SHLHTTPResponse {
        try await Self.translating { () async throws(RecordsSyncError) -> SMARTHTTP.Response in try await http.postJSON(url, body: json) }
    }

    func get(_ url: String) async throws -> SHLHTTPResponse {
        try await Self.translating { () async throws(RecordsSyncError) -> SMARTHTTP.Response in try await http.get(url, accept: "application/jose") }
    }

    /// The client's errors in the receiver's terms: a network failure (its reason in words), or an
    /// answer over the size limit (a refused file, not an unreachable server).
    private static func translating(_ call: () async throws(RecordsSyncError) -> SMARTHTTP.Response) async throws -> SHLHTTPResponse {
        do {
            let answer = try await call()
            return SHLHTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        } catch {
            switch error {
            case .malformedResponse(let text): throw SHLReceiveError.answerTooLarge(text)
            case .transport(let text): throw SHLReceiveError.unreachable(text)
            default: throw SHLReceiveError.unreachable(error.description)
            }
        }
    }
}
