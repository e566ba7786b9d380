import CommonSupport
import Crypto
import ExactJSON
import Foundation
import HealthRecords
import OpenHealthKit
import SmartHealthCards

/// Brings a connection's records into the store: for every clinical resource type, a search of
/// the patient's resources (`Type?patient=ID&_count=N`, with `_lastUpdated=gt<mark>` after the
/// first sync), page after page by `link[relation=next]`; each page's clinical records are
/// stored with the connection's new sync state in one transaction. Then, when the server's
/// CapabilityStatement offers the Patient operation `health-cards-issue`, the patient's
/// SMART Health Cards, stored as verifiable records once they verify; the cards an earlier sync
/// stored from this connection that the server no longer issues are deleted with them.
///
/// The high-water mark of a type is the server's own time: the first page's Bundle
/// `meta.lastUpdated` (when the search ran) or, later, the newest resource `meta.lastUpdated`
/// seen, whichever is later; nothing is subtracted and this machine's clock is never compared
/// with it, so clock skew between the two does not lose or repeat changes. It moves only when
/// a type's last page is stored: a sync that stops halfway leaves every page it stored
/// complete, with the `next` link of the last one saved in the same transaction, and the next
/// sync resumes that type at that link (when the server no longer answers it, it searches the
/// type again from the old mark; what is fetched twice replaces itself). Expired access tokens are refreshed (and the rotated refresh token
/// saved at once); when refresh is refused, the sync stops with
/// ``RecordsSyncError/connectionMustBeRenewed(_:)`` before storing anything more.
public struct RecordsSynchronizer: Sendable {
    /// How to sync.
    public struct Options: Sendable {
        /// `_count`: the page size asked for.
        public var pageSize: Int
        /// The FHIR resource types to search.
        public var resourceTypes: [String]
        /// Whether to fetch health cards when the server offers them.
        public var fetchCards: Bool
        /// Whether to sync the records of a patient who is not the store's owner: false refuses
        /// the sync when the connection's Patient does not match the owner's profile
        /// (`HealthRecordPerson.matches(_:)`), and stores no card whose subject does not.
        public var allowOtherPerson: Bool

        /// Creates options.
        /// - Parameters:
        ///   - pageSize: the page size asked for.
        ///   - resourceTypes: the FHIR resource types to search.
        ///   - fetchCards: whether to fetch health cards when the server offers them.
        ///   - allowOtherPerson: whether to sync the records of another person than the owner.
        public init(pageSize: Int = 200, resourceTypes: [String] = ClinicalRecordClassifier.r4ResourceTypes, fetchCards: Bool = true,
                    allowOtherPerson: Bool = false) {
            self.pageSize = pageSize
            self.resourceTypes = resourceTypes
            self.fetchCards = fetchCards
            self.allowOtherPerson = allowOtherPerson
        }
    }

    /// The store (opened as its owner).
    public let store: HKHealthStore
    /// The HTTP client.
    public let http: SMARTHTTP
    /// Verifies fetched cards.
    public let verifier: SHCVerifier
    /// How to sync.
    public let options: Options

    /// Creates a synchronizer.
    public init(store: HKHealthStore, http: SMARTHTTP, verifier: SHCVerifier, options: Options = Options()) {
        self.store = store
        self.http = http
        self.verifier = verifier
        self.options = options
    }

    /// The stored connections.
    public static func connections(in store: HKHealthStore) async throws(RecordsSyncError) -> [RecordsConnection] {
        do {
            return try await store.healthRecordsConnections().map { stored throws(RecordsSyncError) in try RecordsConnection(stored: stored) }
        } catch let error as RecordsSyncError {
            throw error
        } catch {
            throw .connection("the connections could not be read: \(error)")
        }
    }

    /// Syncs the connection called `name`.
    public func sync(named name: String, progress: @Sendable (SyncProgress) -> Void = { _ in }) async throws(RecordsSyncError) -> SyncReport {
        guard let connection = try await Self.connections(in: store).first(where: { $0.name == name }) else {
            throw .connection("no connection named '\(name)'")
        }
        // A connection made with `--ca-cert` talks to its server through a client trusting it.
        guard let pem = connection.caCertificatesPEM else { return try await sync(connection, http: http, progress: progress) }
        let trusting = try http.trusting(pem: pem)
        let result: Result<SyncReport, RecordsSyncError>
        do {
            result = .success(try await sync(connection, http: trusting, progress: progress))
        } catch {
            result = .failure(error)
        }
        try? await trusting.shutdown()
        return try result.get()
    }

    private func sync(_ connection: RecordsConnection, http: SMARTHTTP,
                      progress: @Sendable (SyncProgress) -> Void) async throws(RecordsSyncError) -> SyncReport {
        let name = connection.name
        let session = SyncSession(connection: connection, http: http, store: store)
        var report = SyncReport(connection: name)
        let importer = HealthRecordImporter(store: store, verifier: verifier,
                                            options: .init(sourceName: name, sourceURL: URL(string: connection.fhirBase),
                                                           allowOtherPerson: options.allowOtherPerson))
        let source = HealthRecordImporter.source(named: name)
        let owner = await importer.owner()
        // The connection's Patient names its records (those stored before and those to come), as
        // an imported Patient does, so that they are grouped under their person.
        if let person = try await checkPatient(session: session, owner: owner) {
            do {
                try await HealthRecordPatient.link(["Patient/\(connection.patient)": person], in: store)
            } catch {
                throw .connection("the store refused the connection's Patient: \(error)")
            }
        }
        var fetched = 0
        for (index, type) in options.resourceTypes.enumerated() {
            try await syncType(type, index: index, session: session, importer: importer, owner: owner, source: source, fetched: &fetched,
                               report: &report, progress: progress)
        }
        if options.fetchCards {
            try await fetchCards(session: session, http: http, report: &report)
        }
        session.connection.lastSyncAt = Date()
        try await session.save(records: [], source: source)
        report.refreshed = session.refreshed
        return report
    }

    /// The verifier for the cards of the connection's server: its own issuers (see
    /// `ConnectionIssuerKeyResolver`) trusted, with keys read over `http`; any other issuer
    /// judged by ``verifier``.
    private func cardVerifier(fhirBase: String, http: SMARTHTTP) -> SHCVerifier {
        guard let own = ConnectionIssuerKeyResolver(fhirBase: fhirBase, http: http) else { return verifier }
        return SHCVerifier(resolver: CompositeKeyResolver([own, verifier.resolver]),
                           trust: verifier.trust.map { .anyOf([$0, .issuers(own.issuers)]) }, now: verifier.now, limits: verifier.limits)
    }

    /// Fetches and stores the records of one resource type, page by page. A page holding a Patient
    /// who is not `owner` stops the sync there (`otherPerson`), before that page is stored.
    private func syncType(_ type: String, index: Int, session: SyncSession, importer: HealthRecordImporter, owner: HealthRecordPerson?,
                          source: HKSource, fetched: inout Int,
                          report: inout SyncReport, progress: @Sendable (SyncProgress) -> Void) async throws(RecordsSyncError) {
        let base = session.connection.fhirBase
        var fields: [(name: String, value: String)] = [(name: "patient", value: session.connection.patient), (name: "_count", value: String(options.pageSize))]
        let mark = session.connection.marks[type]
        if let mark { fields.append((name: "_lastUpdated", value: "gt\(mark)")) }
        let search = "\(base)/\(type)?" + String(decoding: FormURLEncoding.encode(fields), as: UTF8.self)
        // An interrupted pass resumes at the `next` link saved with its last stored page.
        var resuming = session.connection.cursors[type].flatMap { Self.sameOrigin($0, base) ? $0 : nil }
        var url: String? = resuming ?? search
        var newest = SearchPage.latest(mark, session.connection.pending[type])
        var fetchedOfType = 0
        var first = resuming == nil
        while let pageURL = url {
            let response = try await session.authorizedGet(pageURL)
            if resuming != nil {
                resuming = nil
                if (400..<500).contains(response.status) {
                    // The server no longer answers the saved link (an expired cursor): search again from the mark.
                    session.connection.cursors[type] = nil
                    url = search
                    first = true
                    continue
                }
            }
            if first, response.status == 403 || response.status == 404 {
                report.skippedTypes[type] = response.status == 403 ? "not permitted by the connection's token" : "not served"
                return
            }
            guard response.status == 200 else { throw .fhir("searching \(type) answered \(response.status)") }
            let page = try SearchPage.parse(response.body)
            if first { newest = SearchPage.latest(newest, page.bundleLastUpdated) }
            newest = SearchPage.latest(newest, page.newestResource)
            var pageReport = HealthRecordImportReport()
            let records = importer.clinicalRecords(inSearchPage: response.body, named: "\(type) page \(report.pages + 1)", owner: owner,
                                                   into: &pageReport)
            if let owner, let person = pageReport.otherPeople.first {
                throw .otherPerson(patient: person.description, owner: owner.description)
            }
            if let next = page.next {
                guard Self.sameOrigin(next, base) else { throw .fhir("a next link of \(type) leaves the server") }
                session.connection.pending[type] = newest
                session.connection.cursors[type] = next
            } else {
                session.connection.pending[type] = nil
                session.connection.cursors[type] = nil
                if let newest { session.connection.marks[type] = newest }
            }
            try await session.save(records: records, source: source)
            pageReport.stored = records
            report.records.merge(pageReport)
            report.pages += 1
            fetchedOfType += page.entryCount
            fetched += page.entryCount
            report.fetchedByType[type, default: 0] += page.entryCount
            progress(SyncProgress(resourceType: type, typeIndex: index, typeCount: options.resourceTypes.count, fetchedOfType: fetchedOfType,
                                  totalOfType: page.total, fetched: fetched))
            url = page.next
            first = false
        }
    }

    /// Reads the connection's Patient and returns its person (nil when it has no name, or cannot
    /// be read without an `owner` to check), refusing the sync (`otherPerson`) when it does not
    /// match `owner`. With an `owner`, a Patient that cannot be read (another answer than 200, or
    /// not a Patient) refuses the sync too (`patientUnreadable`): whose records they are cannot be
    /// checked. Nothing is checked without an `owner` (no profile, or another person's records
    /// allowed): the Patient is then read only to name the records.
    private func checkPatient(session: SyncSession, owner: HealthRecordPerson?) async throws(RecordsSyncError) -> HealthRecordPerson? {
        let patient = session.connection.patient
        guard Self.isFHIRID(patient) else {
            guard owner == nil else { throw .malformedResponse("the patient in context is not a FHIR id") }
            return nil
        }
        let response = try await session.authorizedGet("\(session.connection.fhirBase)/Patient/\(patient)")
        guard response.status == 200, let resource = (try? JSONParser.parse(response.body))?.objectValue,
              resource["resourceType"]?.stringValue == "Patient" else {
            guard let owner else { return nil }
            throw .patientUnreadable(response.status == 200 ? "its answer is not a Patient" : "the server answered \(response.status)",
                                     owner: owner.description)
        }
        let names = HealthRecordPerson.people(inPatient: resource)
        if let owner, let person = names.first, !names.contains(where: owner.matches) {
            throw .otherPerson(patient: person.description, owner: owner.description)
        }
        return names.first
    }

    private func fetchCards(session: SyncSession, http: SMARTHTTP, report: inout SyncReport) async throws(RecordsSyncError) {
        let base = session.connection.fhirBase
        let metadata = try await http.get("\(base)/metadata")
        guard metadata.status == 200, SMARTEndpoints.offersHealthCardsIssue(capabilityStatement: metadata.body) else { return }
        report.cardsOffered = true
        let body = #"{"resourceType":"Parameters","parameter":[{"name":"credentialType","valueUri":"https://smarthealth.cards#health-card"}]}"#
        let patient = session.connection.patient
        guard Self.isFHIRID(patient) else { throw .malformedResponse("the patient in context is not a FHIR id") }
        let response = try await session.authorizedPost("\(base)/Patient/\(patient)/$health-cards-issue", body: Array(body.utf8))
        guard response.status == 200 else { throw .fhir("$health-cards-issue answered \(response.status)") }
        guard let parameters = (try? JSONParser.parse(response.body))?.objectValue, parameters["resourceType"]?.stringValue == "Parameters" else {
            throw .malformedResponse("$health-cards-issue did not answer Parameters")
        }
        let hasCards = parameters["parameter"]?.arrayValue?.contains { $0["name"]?.stringValue == "verifiableCredential" } ?? false
        var cardReport = HealthRecordImportReport()
        var cards: [HealthRecordImporter.VerifiedCard] = []
        if hasCards {
            let importer = HealthRecordImporter(store: store, verifier: cardVerifier(fhirBase: base, http: http),
                                                options: .init(sourceName: session.connection.name, sourceURL: URL(string: base),
                                                           allowOtherPerson: options.allowOtherPerson))
            cards = await importer.verifiedCards(in: response.body, named: "$health-cards-issue", into: &cardReport)
        }
        report.cardsReplaced = try await storeCards(cards, authoritative: cardReport.isComplete, session: session, report: &cardReport)
        report.records.merge(cardReport)
    }

    /// Stores the issued cards whose FHIR Bundle the connection does not hold yet and, when the
    /// answer is `authoritative` (every card in it verified), deletes the cards earlier syncs
    /// stored from this connection that the server no longer issues (a re-issue for changed
    /// data replaces its card). A card whose content is unchanged is not stored again: the
    /// server signs a new copy, with a new date, each time it is asked.
    ///
    /// The new cards are stored by source, each group in one transaction with the connection's
    /// state (the digests and record ids stored so far added to it); the last transaction also
    /// deletes the stale cards and leaves exactly the issued set in the state. A sync stopped in
    /// between leaves the old cards, and the next one finishes the job. Returns how many stored
    /// cards were named for deletion.
    private func storeCards(_ cards: [HealthRecordImporter.VerifiedCard], authoritative: Bool, session: SyncSession,
                            report: inout HealthRecordImportReport) async throws(RecordsSyncError) -> Int {
        var issued: [String: HealthRecordImporter.VerifiedCard] = [:]
        var order: [String] = []
        for card in cards {
            let digest = HexText.encode(SHA256.hash(data: card.bundleJSON))
            guard issued[digest] == nil else { continue }
            order.append(digest)
            issued[digest] = card
        }
        let previous = session.connection
        let known = Set(previous.cardDigests)
        let fresh = order.filter { !known.contains($0) }
        // Without a complete answer nothing is forgotten: the earlier cards stay, with their ids.
        let finalDigests = authoritative ? order : previous.cardDigests + fresh
        let stale = authoritative ? previous.cardDigests.filter { issued[$0] == nil }.compactMap { previous.cardRecords[$0] } : []
        let kept = Set(finalDigests)
        var finalRecords = previous.cardRecords.filter { kept.contains($0.key) }
        for digest in fresh { finalRecords[digest] = issued[digest]?.record.uuid }
        let groups = Dictionary(grouping: fresh, by: { issued[$0]?.sourceName ?? previous.name }).sorted { $0.key < $1.key }
        var storedDigests = previous.cardDigests
        var storedRecords = previous.cardRecords
        for (position, (sourceName, digests)) in groups.enumerated() {
            let records = digests.compactMap { issued[$0]?.record }
            let last = position == groups.count - 1
            if last {
                session.connection.cardDigests = finalDigests
                session.connection.cardRecords = finalRecords
            } else {
                storedDigests += digests
                for digest in digests { storedRecords[digest] = issued[digest]?.record.uuid }
                session.connection.cardDigests = storedDigests
                session.connection.cardRecords = storedRecords
            }
            try await session.save(records: records, source: HealthRecordImporter.source(named: sourceName), deleting: last ? stale : [])
            report.stored += records
        }
        if groups.isEmpty {
            session.connection.cardDigests = finalDigests
            session.connection.cardRecords = finalRecords
            try await session.save(records: [], source: HealthRecordImporter.source(named: previous.name), deleting: stale)
        }
        return stale.count
    }

    /// Whether `text` is a FHIR id (`[A-Za-z0-9\-\.]{1,64}`), safe in a URL path.
    static func isFHIRID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."): true
            default: false
            }
        }
    }

    /// Whether `url` has the scheme, host and port of `base`.
    static func sameOrigin(_ url: String, _ base: String) -> Bool {
        guard let a = URLComponents(string: url), let b = URLComponents(string: base) else { return false }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }
}

extension HealthRecordImportReport {
    /// Adds another report's counts to this one.
    mutating func merge(_ other: HealthRecordImportReport) {
        stored += other.stored
        for (type, count) in other.skipped { skipped[type, default: 0] += count }
        refusals += other.refusals
        unreadable += other.unreadable
        unreachableIssuers += other.unreachableIssuers
        for person in other.people where !people.contains(person) { people.append(person) }
        for person in other.otherPeople where !otherPeople.contains(person) { otherPeople.append(person) }
    }
}
