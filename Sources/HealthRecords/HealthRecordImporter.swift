import FHIRCore
import Foundation
import ModelsDSTU2
import ModelsR4
import OpenHealthKit
import SmartHealthCards

/// Brings clinical records and health cards into a store, as the owner: FHIR resources (one, a
/// Bundle's entries, NDJSON) become `HKClinicalRecord`s filed by ``ClinicalRecordClassifier``,
/// and SMART Health Cards become `HKVerifiableClinicalRecord`s once they verify.
///
/// Resources are validated first, R4 ones with ModelsR4 and DSTU2 ones with ModelsDSTU2 (an
/// invalid one is refused with its problems). A card is verified exactly as `health shc verify`
/// does, with the same resolvers and trust policy, and is never stored unless it is valid (and, under a trust
/// policy, from a trusted issuer). Importing the same resource or card again replaces it.
public struct HealthRecordImporter: Sendable {
    /// How the import files what it reads.
    public struct Options: Sendable {
        /// The FHIR version of the resources (4.0.1 unless said otherwise).
        public var fhirVersion: HKFHIRVersion
        /// The provider the records come from; nil names them "Health Records" (resources) or
        /// after the issuer (cards).
        public var sourceName: String?
        /// The FHIR base URL the resources come from: a record's `sourceURL` is this base +
        /// `/Type/id`. Without it, a Bundle entry's absolute `fullUrl` is used.
        public var sourceURL: URL?
        /// The time of the import: the date of a record whose resource has none.
        public var now: Date
        /// Whether records of a person other than the store's owner are stored: false refuses an
        /// input whose Patient, or a card whose subject, does not match the owner's profile
        /// (``HealthRecordPerson/matches(_:)``); a store without a profile refuses nothing.
        public var allowOtherPerson: Bool

        /// Creates options.
        /// - Parameters:
        ///   - fhirVersion: the FHIR version of the resources.
        ///   - sourceName: the provider the records come from.
        ///   - sourceURL: the FHIR base URL the resources come from.
        ///   - now: the time of the import.
        ///   - allowOtherPerson: whether records of another person than the owner are stored.
        public init(fhirVersion: HKFHIRVersion = .primaryR4(), sourceName: String? = nil, sourceURL: URL? = nil, now: Date = Date(),
                    allowOtherPerson: Bool = false) {
            self.fhirVersion = fhirVersion
            self.sourceName = sourceName
            self.sourceURL = sourceURL
            self.now = now
            self.allowOtherPerson = allowOtherPerson
        }
    }

    /// The store the records go to (opened as its owner).
    public let store: HKHealthStore
    /// Verifies cards.
    public let verifier: SHCVerifier
    /// How to file what is read.
    public let options: Options

    /// Creates an importer.
    public init(store: HKHealthStore, verifier: SHCVerifier, options: Options = Options()) {
        self.store = store
        self.verifier = verifier
        self.options = options
    }

    /// Imports one input's bytes (`name` is how the report refers to it) into the store, adding
    /// to `report`. Everything that can be stored is stored, in one transaction per input.
    public func importInput(_ bytes: [UInt8], named name: String, into report: inout HealthRecordImportReport) async throws {
        guard let input = await prepareInput(bytes, named: name, into: &report) else { return }
        try await store(input, into: &report, batchSize: .max)
    }

    /// Imports one part of an NDJSON input read in parts (a file larger than
    /// ``HealthRecordInput/maximumDocumentSize``, which is never held whole): its complete lines,
    /// the first being line `firstLine` of the input, stored in one transaction; lines that are
    /// not resources are refusals in `report`.
    /// - Returns: how many lines were resources (valid or not).
    @discardableResult
    public func importNDJSONPart(_ bytes: [UInt8], firstLine: Int, named name: String, into report: inout HealthRecordImportReport) async throws -> Int {
        let (slices, problems) = HealthRecordInput.ndjsonLines(bytes, firstLine: firstLine, validate: Self.validator(for: options.fhirVersion))
        guard checkPatients(in: slices, owner: await owner(), input: name, report: &report) else { return slices.count }
        let records = records(from: slices, problems: problems, input: name, report: &report)
        try await HealthRecordPatient.link(HealthRecordPatient.patients(in: slices), in: store)
        try await save(records, sourceName: options.sourceName ?? "Health Records", into: &report)
        return slices.count
    }

    /// Checks the Patients of one part of an NDJSON input read in parts against `owner`, storing
    /// nothing: the first pass over such an input, so that one holding another person's Patient
    /// is refused before any of its parts is stored, wherever in it the Patient is. The Patients
    /// are noted in `report.people`; a refusal naming both people is added for one that is not
    /// the owner.
    /// - Parameters:
    ///   - bytes: the part's complete lines.
    ///   - firstLine: the line number of the first of them in the input.
    ///   - name: how the report refers to the input.
    ///   - owner: the owner (``owner()``).
    ///   - report: the report to add to.
    /// - Returns: whether the part holds no Patient other than the owner.
    public func checkNDJSONPatients(_ bytes: [UInt8], firstLine: Int, named name: String, owner: HealthRecordPerson,
                                    into report: inout HealthRecordImportReport) -> Bool {
        let (slices, _) = HealthRecordInput.ndjsonLines(bytes, firstLine: firstLine, validate: nil)
        return checkPatients(in: slices, owner: owner, input: name, report: &report)
    }

    /// One input read, validated and filed, not yet stored: its clinical records, or its cards
    /// that verified (``prepareInput(_:named:into:)``; stored by ``store(_:into:batchSize:progress:)``).
    public struct PreparedInput: Sendable {
        enum Content: Sendable {
            case records([HKClinicalRecord], sourceName: String)
            case cards([VerifiedCard])
        }

        let content: Content
        /// The people of the input's Patients, by reference: kept in the store when it is stored
        /// (``HealthRecordPatient/link(_:in:)``), so that records of other inputs are named after them.
        var patients: [String: HealthRecordPerson] = [:]
        /// How many records storing it saves: the records, or the verified cards.
        public var count: Int {
            switch content {
            case .records(let records, _): records.count
            case .cards(let cards): cards.count
            }
        }
    }

    /// Reads one input's bytes and files what it holds, storing nothing; what is unreadable,
    /// skipped or refused is added to `report`. Nil when nothing in it can be stored.
    public func prepareInput(_ bytes: [UInt8], named name: String, into report: inout HealthRecordImportReport) async -> PreparedInput? {
        guard let input = read(bytes, named: name, into: &report) else { return nil }
        switch input {
        case .resources(let slices, let problems):
            guard checkPatients(in: slices, owner: await owner(), input: name, report: &report) else { return nil }
            let records = records(from: slices, problems: problems, input: name, report: &report)
            return PreparedInput(content: .records(records, sourceName: options.sourceName ?? "Health Records"),
                                 patients: HealthRecordPatient.patients(in: slices))
        case .cards(let cardBytes):
            return PreparedInput(content: .cards(await verifiedCards(cardBytes, input: name, report: &report)))
        }
    }

    /// Stores a prepared input's records, `batchSize` records per transaction (a card is always
    /// its own), adding each batch to `report.stored` once it is durable and telling `progress`
    /// how many of the input's records are stored so far. If the store fails, the batches
    /// before stay stored (and are in `report.stored`) and the error is thrown.
    public func store(_ input: PreparedInput, into report: inout HealthRecordImportReport, batchSize: Int = 500,
                      progress: (Int) -> Void = { _ in }) async throws {
        let size = max(batchSize, 1)
        var done = 0
        switch input.content {
        case .records(let records, let sourceName):
            // The input's Patients first: they name the records stored before them (and these).
            try await HealthRecordPatient.link(input.patients, in: store)
            while done < records.count {
                let batch = Array(records[done..<min(records.count, done &+ size)])
                try await save(batch, sourceName: sourceName, into: &report)
                done += batch.count
                progress(done)
            }
        case .cards(let cards):
            for card in cards {
                try await save([card.record], sourceName: card.sourceName, into: &report)
                done += 1
                progress(done)
            }
        }
    }

    /// The clinical records of one page of FHIR search results (``HealthRecordInput/searchPage(_:validate:)``:
    /// each resource validated on its own), not stored; what was skipped or refused is added to
    /// `report`.
    /// A Patient among them that is not the owner (``Options/allowOtherPerson``, `owner`) refuses
    /// the whole page.
    public func clinicalRecords(inSearchPage bytes: [UInt8], named name: String, owner: HealthRecordPerson? = nil,
                                into report: inout HealthRecordImportReport) -> [HKClinicalRecord] {
        do {
            let slices = try HealthRecordInput.searchPage(bytes, validate: Self.validator(for: options.fhirVersion))
            guard checkPatients(in: slices, owner: owner, input: name, report: &report) else { return [] }
            return records(from: slices, input: name, report: &report)
        } catch {
            report.unreadable.append((name, error.description))
            return []
        }
    }

    /// A card that verified, with the name of the source it is stored under.
    public struct VerifiedCard: Sendable {
        /// The verifiable record of the card.
        public var record: HKVerifiableClinicalRecord
        /// The source name: the options' one, or the issuer's.
        public var sourceName: String
        /// The card's FHIR Bundle (JSON), as the verification read it.
        public var bundleJSON: [UInt8]
    }

    /// The cards of one input (any form `health shc verify` takes) that verify (and are
    /// trusted, under a trust policy), not stored: refusals are added to `report`.
    public func verifiedCards(in bytes: [UInt8], named name: String, into report: inout HealthRecordImportReport) async -> [VerifiedCard] {
        await verifiedCards(bytes, input: name, report: &report)
    }

    private func read(_ bytes: [UInt8], named name: String, into report: inout HealthRecordImportReport) -> HealthRecordInput? {
        do {
            return try HealthRecordInput.read(bytes, validate: Self.validator(for: options.fhirVersion))
        } catch {
            report.unreadable.append((name, error.description))
            return nil
        }
    }

    private func records(from slices: [FHIRResourceSlice], problems: [String], input name: String,
                         report: inout HealthRecordImportReport) -> [HKClinicalRecord] {
        if !problems.isEmpty {
            report.refusals.append(.init(input: name, location: "document", reasons: problems))
        }
        return records(from: slices, input: name, report: &report)
    }

    private func verifiedCards(_ cardBytes: [UInt8], input name: String, report: inout HealthRecordImportReport) async -> [VerifiedCard] {
        let owner = await owner()
        let cards: [SHCInput.Card]
        do {
            cards = try SHCInput.parse(cardBytes, allowSurroundingWhitespace: true)
        } catch {
            report.unreadable.append((name, HealthRecordImportError.unreadableCard("\(error)").description))
            return []
        }
        var verified: [VerifiedCard] = []
        for (index, card) in cards.enumerated() {
            let verification = await verifier.verify(card)
            let location = "card \(index + 1)"
            guard verification.isAccepted, let record = Self.verifiableRecord(card: card, report: verification, now: options.now) else {
                if !verification.errors.isEmpty, verification.errors.allSatisfy({ $0.code == .resolverFailed }) {
                    report.unreachableIssuers += 1
                }
                var reasons = verification.errors.map(\.description)
                if verification.isValid, verification.issuerTrusted == false { reasons.append("the issuer is not trusted") }
                if reasons.isEmpty { reasons.append("the card has no readable summary") }
                report.refusals.append(.init(input: name, location: location, reasons: reasons))
                continue
            }
            let sourceName = options.sourceName ?? verification.issuerName ?? URL(string: record.issuerIdentifier)?.host ?? "SMART Health Cards"
            let subjects = (try? JSONParser.parse(verification.bundleJSON ?? [])).map(HealthRecordPerson.patients(inBundle:)) ?? []
            guard check(subjects, owner: owner, input: name, location: location, report: &report) else { continue }
            verified.append(VerifiedCard(record: record, sourceName: sourceName, bundleJSON: verification.bundleJSON ?? []))
        }
        return verified
    }

    /// The owner's profile as a person, when records of other people are refused and the
    /// profile names someone; nil otherwise (nothing is refused). A profile that cannot be read
    /// checks nothing: the store then refuses the records themselves.
    public func owner() async -> HealthRecordPerson? {
        guard !options.allowOtherPerson, let profile = try? await store.ownerProfile() else { return nil }
        return HealthRecordPerson(profile: profile)
    }

    /// Notes the Patients among `slices` in `report.people` and, when one is not `owner`, refuses
    /// them all (a refusal naming both people, the person in `report.otherPeople`); whether they
    /// may be stored.
    private func checkPatients(in slices: [FHIRResourceSlice], owner: HealthRecordPerson?, input: String,
                               report: inout HealthRecordImportReport) -> Bool {
        var allowed = true
        for slice in slices where slice.resourceType == "Patient" {
            let people = HealthRecordPerson.people(inPatient: slice.resource)
            let location = "\(slice.location) Patient\(slice.resource["id"]?.stringValue.map { "/\($0)" } ?? "")"
            if !check([people], owner: owner, input: input, location: location, report: &report) { allowed = false }
        }
        return allowed
    }

    /// Checks the patients of one resource or card against `owner`: notes each in
    /// `report.people`, and refuses (a refusal naming both) when one of them matches none of the
    /// owner's names.
    private func check(_ patients: [[HealthRecordPerson]], owner: HealthRecordPerson?, input: String, location: String,
                       report: inout HealthRecordImportReport) -> Bool {
        var allowed = true
        for names in patients {
            guard let person = names.first else { continue }
            if !report.people.contains(person) { report.people.append(person) }
            guard let owner, !names.contains(where: owner.matches) else { continue }
            allowed = false
            if !report.otherPeople.contains(person) { report.otherPeople.append(person) }
            report.refusals.append(.init(input: input, location: location, reasons: [
                "these records are of \(person.description), but this store belongs to \(owner.description): nothing in this input was stored",
            ]))
        }
        return allowed
    }

    /// The records of the clinical resources; everything else is counted as skipped or refused.
    /// Each record keeps its patient in its metadata (``HealthRecordPatient``), named after the
    /// Patient among `slices` that its reference points at, and a lab result its test's code
    /// (``HealthRecordTestCode``).
    func records(from slices: [FHIRResourceSlice], input: String, report: inout HealthRecordImportReport) -> [HKClinicalRecord] {
        var records: [HKClinicalRecord] = []
        // The input's Patients name the records' patient (kept in each record's metadata).
        let patients = HealthRecordPatient.patients(in: slices)
        for slice in slices {
            let resourceType = slice.resourceType
            guard let clinicalType = ClinicalRecordClassifier.clinicalType(of: slice.resource) else {
                report.skipped[resourceType, default: 0] += 1
                continue
            }
            let identifier = slice.resource["id"]?.stringValue ?? slice.fullURL.flatMap(Self.identifier(fromFullURL:))
            let location = "\(slice.location) \(resourceType)\(identifier.map { "/\($0)" } ?? "")"
            guard slice.issues.isEmpty else {
                report.refusals.append(.init(input: input, location: location, reasons: slice.issues))
                continue
            }
            guard let identifier, !identifier.isEmpty else {
                report.refusals.append(.init(input: input, location: location, reasons: ["the resource has no id"]))
                continue
            }
            let description = ClinicalRecordDescription(resource: slice.resource)
            let start = description.startDate ?? options.now
            let resource = HKFHIRResource(resourceType: HKFHIRResourceType(rawValue: resourceType), identifier: identifier,
                                          data: Data(slice.bytes), sourceURL: sourceURL(resourceType: resourceType, id: identifier, fullURL: slice.fullURL),
                                          fhirVersion: options.fhirVersion)
            records.append(HKClinicalRecord(type: HKClinicalType(clinicalType), startDate: start, endDate: max(start, description.endDate ?? start),
                                            displayName: description.displayName, fhirResource: resource,
                                            metadata: (HealthRecordPatient.of(slice.resource, patients: patients)
                                                ?? HealthRecordPatient(reference: "", person: nil)).metadata
                                                .merging(HealthRecordTestCode.metadata(clinicalType, resource: slice.resource)) { own, _ in own }))
        }
        return records
    }

    /// Stores records and adds them to `report`: to `stored`, or, for those the store already
    /// had with the same content (a re-import), to `alreadyStored`.
    private func save(_ records: [HKSample], sourceName: String, into report: inout HealthRecordImportReport) async throws {
        guard !records.isEmpty else { return }
        // Records stored before the import kept their patient and test code get them first (once per
        // store; afterwards a lookup each), so that the same records imported again match them.
        try await HealthRecordPatient.completeStoredRecords(in: store)
        try await HealthRecordTestCode.completeStoredRecords(in: store)
        // Records whose Patient came in another file, stored before, are named after it.
        let records = try await HealthRecordPatient.named(records, in: store)
        let counts = try await store.saveHealthRecords(records, source: Self.source(named: sourceName))
        // The medications the records name become tracked medications, once per concept.
        try await MedicationConcepts.track(records, in: store)
        report.add(records, saved: counts)
    }

    /// The source records are stored under: the provider's name, and a bundle identifier made from it.
    public static func source(named name: String) -> HKSource {
        let slug = String(name.lowercased().unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." ) ? Character(scalar) : "-"
        })
        return HKSource(name: name, bundleIdentifier: "org.openhealthkit.records.\(slug)")
    }

    private func sourceURL(resourceType: String, id: String, fullURL: String?) -> URL? {
        if let base = options.sourceURL {
            var text = base.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return URL(string: "\(text)/\(resourceType)/\(id)")
        }
        guard let fullURL, fullURL.hasPrefix("http://") || fullURL.hasPrefix("https://") else { return nil }
        return URL(string: fullURL)
    }

    /// `urn:uuid:X` → X; an absolute URL's last path segment.
    static func identifier(fromFullURL fullURL: String) -> String? {
        if fullURL.hasPrefix("urn:uuid:") { return String(fullURL.dropFirst("urn:uuid:".count)) }
        if fullURL.hasPrefix("urn:oid:") { return String(fullURL.dropFirst("urn:oid:".count)) }
        return fullURL.split(separator: "/").last.map(String.init)
    }

    /// The R4 validator (ModelsR4's `FHIRValidator`), as problems.
    @Sendable public static func validateR4(_ value: JSONValue) -> [ValidationProblem] {
        problems(ModelsR4.FHIRValidator().validate(value))
    }

    /// The DSTU2 validator (ModelsDSTU2's `FHIRValidator`), as problems.
    @Sendable public static func validateDSTU2(_ value: JSONValue) -> [ValidationProblem] {
        problems(ModelsDSTU2.FHIRValidator().validate(value))
    }

    /// The validator of a FHIR version: R4's or DSTU2's; nil (no validation) for other releases,
    /// which the importer's callers do not accept.
    public static func validator(for version: HKFHIRVersion) -> (@Sendable (JSONValue) -> [ValidationProblem])? {
        switch version.fhirRelease {
        case .r4: validateR4
        case .dstu2: validateDSTU2
        default: nil
        }
    }

    private static func problems(_ issues: [FHIRValidationIssue]) -> [ValidationProblem] {
        issues.map { ValidationProblem(isError: $0.severity == .error, path: $0.path, message: $0.message) }
    }

    /// The HealthKit record of a verified card.
    public static func verifiableRecord(card: SHCInput.Card, report: SHCVerificationReport, now: Date) -> HKVerifiableClinicalRecord? {
        guard let summary = report.summary, let issuer = summary.issuer else { return nil }
        let issued = summary.issuedDate ?? now
        return HKVerifiableClinicalRecord(
            recordTypes: summary.recordTypes, issuerIdentifier: issuer,
            subject: HKVerifiableClinicalRecordSubject(fullName: summary.subjectName ?? "", dateOfBirthComponents: summary.birthDate?.dateComponents),
            issuedDate: issued, relevantDate: summary.relevantDate ?? issued, expirationDate: summary.expirationDate,
            itemNames: summary.itemNames, sourceType: .smartHealthCard, dataRepresentation: Data(card.jws.utf8))
    }
}
