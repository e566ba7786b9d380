import ExactJSON
import FhirBlocks
import FhirBlocksStore
import Foundation
import SmartHealthCards

/// SMART Health Cards from the patient compartment: `POST /fhir/Patient/{id}/$health-cards-issue`
/// (the card spec's FHIR API) and the issuer's public key set at `/.well-known/jwks.json`.
///
/// A card's `iss` is the server's public base URL, which must be `https`; the key is the
/// server's ``cardIssuerKey``. The operation needs read access to what it packages (the
/// `Immunization` or `Observation` read scope), releases only resources the token may read
/// (labels as for a read), and is audited (action `E`, naming every resource disclosed) before
/// it answers.
///
/// An issuer vouches only for data whose origin it knows: a card holds only resources (the
/// Patient's identity included) that ``HealthCardSources`` vouches for, those the operator's
/// card sources (``ServerConfiguration/cardSources``) wrote or targeted with a Provenance they
/// wrote. What the patient's wallet or another app wrote is left off the card; a request that
/// would sign only such data is refused with 422 and an OperationOutcome (`business-rule`).
/// With no card sources the server signs nothing (501, as without an issuer key) and does not
/// advertise the operation.
extension FHIRController {
    /// Whether the server issues cards: it has an issuer key, an `https` base URL and card
    /// sources.
    var issuesHealthCards: Bool { discovery.issuesHealthCards }

    /// Whether a path segment names the operation (`$` may come percent-encoded).
    static func isHealthCardsIssue(_ segment: String) -> Bool {
        segment == SHCHealthCardsIssue.operationName || segment.lowercased() == "%24" + String(SHCHealthCardsIssue.operationName.dropFirst())
    }

    /// The CapabilityStatement's `rest.resource.operation` entry for `Patient`, with what the
    /// issuer vouches for in its `documentation`.
    static let healthCardsIssueOperation: JSONValue = .object(members: [
        .init("name", .string("health-cards-issue")),
        .init("definition", .string("http://hl7.org/fhir/uv/smart-health-cards-and-links/OperationDefinition/patient-i-health-cards-issue")),
        .init("documentation", .string(healthCardsIssuePolicy)),
    ])

    /// What the issuer vouches for, as discovery states it.
    static let healthCardsIssuePolicy = """
        Cards hold only resources whose current version was written by one of the card sources the server's operator lists \
        (health serve --card-source), or that a Provenance written by a card source targets (its current version, or a plain \
        reference written after it); the Patient's identity claims too. Data written by the patient's wallet or by other apps is \
        never signed: it is left off the card, and a request that would sign only such data is refused (422 OperationOutcome).
        """

    /// `POST /fhir/Patient/{id}/$health-cards-issue` with a `Parameters` body.
    func issueHealthCards(patientID: String, body: [UInt8], access: BearerAccess) async -> ServiceResponse {
        guard let key = cardIssuerKey, let issuer = try? SHCIssuer(key: key, issuer: baseURL) else {
            return Self.outcome(status: 501, code: "not-supported", "this server issues no health cards (it needs an issuer key and an https public URL)")
        }
        guard !configuration.cardSources.isEmpty else {
            return Self.outcome(status: 501, code: "not-supported",
                                "this server issues no health cards: its operator lists no card sources whose data it vouches for (health serve --card-source)")
        }
        guard let parameters = try? JSONParser.parse(body, maximumDepth: 64) else {
            return Self.outcome(status: 400, code: "structure", "the body is not JSON")
        }
        let request: SHCHealthCardsIssue.Request
        do {
            request = try SHCHealthCardsIssue.Request(parameters: parameters)
        } catch {
            return Self.outcome(status: 400, code: "invalid", error.description)
        }
        // credentialType values are ANDed; each card is of one kind.
        var kinds = HealthCardKind.allCases
        var named: [HealthCardKind] = []
        for type in request.resourceTypes {
            switch HealthCardKind.named(type) {
            case nil: continue
            case .success(let kind)?: named.append(kind); kinds.removeAll { $0 != kind }
            case .failure?: kinds = []
            }
        }
        // What the audit entry of a refusal names (an id that is not a FHIR id is not repeated).
        let operationResource = [Self.isValidID(patientID) ? "Patient/\(patientID)" : "Patient"]
        // The scope must cover reading what is asked for (for `#health-card` alone: what it covers).
        let covered = HealthCardKind.allCases.filter { covers(access.grants, type: $0.resourceType, interaction: .read) }
        guard named.allSatisfy(covered.contains), !named.isEmpty || !covered.isEmpty else {
            try? await auditAccess(access, resources: operationResource, outcome: .minorFailure, reason: "insufficient_scope", action: "E")
            return Self.outcome(status: 403, code: "forbidden", "the token's scope does not cover reading the resources of these cards")
        }
        kinds.removeAll { !covered.contains($0) }
        guard Self.isValidID(patientID) else { return Self.outcome(status: 404, code: "not-found", "unknown resource") }
        guard await isTokenPatient(patientID, patient: access.token.patient, grants: access.grants) else {
            try? await auditAccess(access, resources: operationResource, outcome: .minorFailure, reason: "not-found", action: "E")
            return Self.outcome(status: 404, code: "not-found", "Patient/\(patientID) is not known")
        }
        let cards: [IssuedCard]
        let unvouched: [String]
        do {
            (cards, unvouched) = try await healthCards(kinds: kinds, patientID: patientID, request: request, issuer: issuer, access: access)
        } catch {
            return Self.outcome(status: 500, code: "exception", "the cards could not be made")
        }
        // Data the server cannot vouch for is never signed; when that is all there is, say so.
        if cards.isEmpty, !unvouched.isEmpty {
            try? await auditAccess(access, resources: operationResource, outcome: .minorFailure, reason: "unvouched_data", action: "E")
            let listed = unvouched.prefix(10).joined(separator: ", ") + (unvouched.count > 10 ? ", …" : "")
            return Self.outcome(status: 422, code: "business-rule",
                                "this server signs only data written by its card sources, not by the patient or other apps: \(listed)")
        }
        // Nothing is disclosed unless its audit entry is stored.
        var disclosed: [String] = []
        for reference in cards.flatMap({ $0.entries.map { $0.reference } }) where !disclosed.contains(reference) { disclosed.append(reference) }
        do {
            try await auditAccess(access, resources: disclosed.isEmpty ? operationResource : disclosed, outcome: .success, action: "E")
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        let base = baseURL
        let links = cards.enumerated().flatMap { index, card in
            card.entries.enumerated().map { position, entry in
                SHCHealthCardsIssue.ResourceLink(vcIndex: index, bundledResource: "resource:\(position)", hostedResource: "\(base)/fhir/\(entry.reference)")
            }
        }
        return .json(SHCHealthCardsIssue.response(credentials: cards.map(\.jws), resourceLinks: links), contentType: Self.fhirJSON)
    }

    /// A card and the hosted resources of its bundle's entries, in entry order.
    struct IssuedCard {
        let jws: String
        let entries: [(reference: String, resource: JSONValue)]
    }

    /// One card per kind that has resources to show: the Patient's identity claims, then the
    /// kind's resources the token may read, oldest first; only resources the card sources vouch
    /// for (``HealthCardSources``). The Patient is the compartment's Patient resource
    /// `patientID` names, or (when `patientID` is the csiGuid) its first one vouched for, else
    /// its first one; a compartment without one gets no card. Also returns the references of
    /// the resources that would have been on a card but are not vouched for (the Patient's
    /// first when it is not: then no card is made).
    func healthCards(kinds: [HealthCardKind], patientID: String, request: SHCHealthCardsIssue.Request, issuer: SHCIssuer,
                     access: BearerAccess) async throws -> (cards: [IssuedCard], unvouched: [String]) {
        let patient = access.token.patient
        guard !kinds.isEmpty else { return ([], []) }
        let sources = try await HealthCardSources.load(store: store, patient: patient, sources: configuration.cardSources, baseURL: baseURL)
        let patientWriters = try await store.resourceWriters(patient: patient, type: "Patient")
        var patientRecord = try await store.resource(patient: patient, type: "Patient", id: patientID)
        if patientRecord == nil {
            let all = try await store.resources(patient: patient, type: "Patient")
            patientRecord = all.first { sources.vouches(for: $0, writer: patientWriters[$0.id]) } ?? all.first
        }
        guard let patientRecord, let patientValue = try? JSONParser.parse(patientRecord.json) else { return ([], []) }
        let patientVouched = sources.vouches(for: patientRecord, writer: patientWriters[patientRecord.id])
        let identity = Self.identity(of: patientValue, id: patientRecord.id, claims: request.includeIdentityClaims)
        let since = request.sinceDate
        let issuedAt = Date(timeIntervalSince1970: Double(now.millisecondsSince1970) / 1000)
        var cards: [IssuedCard] = []
        var unvouched: [String] = []
        for kind in kinds {
            // The identity travels with the card: the Patient's labels must be within what the
            // token may read of the card's type.
            guard visible(patientValue, type: kind.resourceType, interaction: .read, grants: access.grants) else { continue }
            let writers = try await store.resourceWriters(patient: patient, type: kind.resourceType)
            var selected: [(date: Date, id: String, value: JSONValue)] = []
            for record in try await store.resources(patient: patient, type: kind.resourceType) {
                guard let value = try? JSONParser.parse(record.json), kind.includes(value),
                      visible(value, type: kind.resourceType, interaction: .read, grants: access.grants) else { continue }
                let date = kind.clinicalDate(of: value) ?? Date(timeIntervalSince1970: Double(record.lastUpdated.millisecondsSince1970) / 1000)
                if let since, date < since { continue }
                guard sources.vouches(for: record, writer: writers[record.id]) else {
                    unvouched.append("\(kind.resourceType)/\(record.id)")
                    continue
                }
                selected.append((date, record.id, value))
            }
            guard !selected.isEmpty else { continue }
            guard patientVouched else {
                if !unvouched.contains("Patient/\(patientRecord.id)") { unvouched.insert("Patient/\(patientRecord.id)", at: 0) }
                continue
            }
            selected.sort { ($0.date, $0.id) < ($1.date, $1.id) }
            var entries: [(reference: String, resource: JSONValue)] = [("Patient/\(patientRecord.id)", identity)]
            for item in selected {
                guard case .object(var object) = item.value else { continue }
                object[kind.subjectMember] = .object(members: [.init("reference", .string("Patient/\(patientRecord.id)"))])
                entries.append(("\(kind.resourceType)/\(item.id)", .object(object)))
            }
            let bundle = JSONValue.object(members: [
                .init("resourceType", .string("Bundle")),
                .init("type", .string("collection")),
                .init("entry", .array(entries.map { JSONValue.object(members: [.init("resource", $0.resource)]) })),
            ])
            let jws = try issuer.issue(bundle: bundle, types: [kind.legacyCredentialType], nbf: issuedAt,
                                       minimizer: SHCBundleMinimizer(unresolvedReferences: .remove, keepMetaSecurity: false))
            cards.append(IssuedCard(jws: jws, entries: entries))
        }
        return (cards, unvouched)
    }

    /// The Patient as a card carries it: only the identity claims asked for among `Patient.name`
    /// and `Patient.birthDate` (both when none is asked for), and its id so that references
    /// to it resolve (the minimizer removes it).
    static func identity(of patient: JSONValue, id: String, claims: [String]) -> JSONValue {
        let wanted = claims.isEmpty ? ["Patient.name", "Patient.birthDate"] : claims
        var members: [JSONMember] = [.init("resourceType", .string("Patient")), .init("id", .string(id))]
        for member in ["name", "birthDate"] where wanted.contains("Patient.\(member)") {
            if let value = patient[member] { members.append(.init(member, value)) }
        }
        return .object(members: members)
    }
}
