import ExactJSON

/// One entry of the audit log: an IHE BALP-style summary of an `AuditEvent` (§2.9, §4.2) that
/// holds identifiers only (csiGuids, client ids, permission ids, token ids, resource
/// references, hashes), never patient data.
///
/// The Merkle leaf is `SHA-256(0x00 ‖ canonicalBytes)`. Canonical bytes: a JSON object with
/// members sorted by name (all names are ASCII, so this is also RFC 8785 order), absent optional
/// members and empty arrays omitted, no whitespace, integers in decimal, strings escaped
/// minimally (FHIRCore `JSONWriter`, which matches RFC 8785 for these values), version `"v":1`.
public struct AuditEntry: Sendable, Hashable {
    /// The event.
    public var type: AuditEventType
    /// The BALP/R4 `AuditEvent.action` (C, R, U, D or E): the type's own
    /// (``AuditEventType/action``) unless the entry says more, as a FHIR write does (`C` for a
    /// create, `U` for an update). It is part of the canonical bytes, so each entry keeps the
    /// action it was logged with.
    public var action: String
    /// When it happened.
    public var recorded: Timestamp
    /// Success or failure.
    public var outcome: AuditOutcome
    /// Who acted (csiGuid or client id; `requestor`).
    public var agent: String
    /// Whose data (wallet csiGuid or `Patient/<id>`), if any.
    public var patient: String?
    /// Other parties (grantee, or the delegation chain's grantors).
    public var otherAgents: [String]
    /// Permissions involved.
    public var permissionIDs: [String]
    /// The code or token identifier involved (never the token).
    public var tokenID: String?
    /// Resource references (`Observation/123`) or the query type.
    public var resources: [String]
    /// The scope granted or used.
    public var scope: String?
    /// Compat quirks accepted for this request.
    public var quirks: [CompatQuirk]
    /// Lowercase hex SHA-256 of the request body (lets a signed request be matched later).
    public var requestHash: String?
    /// A short reason code for a failure (for example `invalid_signature`), no free text.
    public var reason: String?
    /// How many events the entry stands for, when it aggregates several (refusals of callers
    /// that could not be verified are counted, not attributed); nil for one event.
    public var count: Int?

    /// The agent of an aggregate entry for callers that could not be verified.
    public static let unverifiedAgent = "unverified"

    /// Creates an entry.
    public init(type: AuditEventType, recorded: Timestamp, outcome: AuditOutcome = .success, agent: String, patient: String? = nil,
                otherAgents: [String] = [], permissionIDs: [String] = [], tokenID: String? = nil, resources: [String] = [],
                scope: String? = nil, quirks: [CompatQuirk] = [], requestHash: String? = nil, reason: String? = nil, action: String? = nil,
                count: Int? = nil) {
        self.count = count
        self.type = type
        self.action = action ?? type.action
        self.recorded = recorded
        self.outcome = outcome
        self.agent = agent
        self.patient = patient
        self.otherAgents = otherAgents
        self.permissionIDs = permissionIDs
        self.tokenID = tokenID
        self.resources = resources
        self.scope = scope
        self.quirks = quirks
        self.requestHash = requestHash
        self.reason = reason
    }

    /// The canonical JSON value (members sorted).
    public var canonicalJSON: JSONValue {
        var object = JSONObject()
        object.append("action", action)
        object.append("agent", agent)
        if let count { object.append("count", .number(String(count))) }
        if !otherAgents.isEmpty { object.append("otherAgents", strings: otherAgents) }
        object.append("outcome", .number(String(outcome.rawValue)))
        object.append("patient", ifPresent: patient)
        if !permissionIDs.isEmpty { object.append("permissionIds", strings: permissionIDs) }
        if !quirks.isEmpty { object.append("quirks", strings: quirks.map(\.rawValue)) }
        object.append("reason", ifPresent: reason)
        object.append("recorded", recorded.wireText)
        object.append("requestHash", ifPresent: requestHash)
        if !resources.isEmpty { object.append("resources", strings: resources) }
        object.append("scope", ifPresent: scope)
        object.append("tokenId", ifPresent: tokenID)
        object.append("type", type.rawValue)
        object.append("v", .number("1"))
        object.members.sort { $0.key < $1.key }
        return .object(object)
    }

    /// The canonical bytes that are hashed into the log: ``canonicalJSON`` serialized, written
    /// member by member in name order by the same `JSONWriter`, without building the tree.
    public var canonicalBytes: [UInt8] {
        var writer = JSONWriter()
        func string(_ name: String, _ value: String?) {
            guard let value else { return }
            writer.key(name)
            writer.string(value)
        }
        func strings(_ name: String, _ values: [String]) {
            guard !values.isEmpty else { return }
            writer.key(name)
            writer.beginArray()
            for value in values { writer.string(value) }
            writer.endArray()
        }
        writer.beginObject()
        string("action", action)
        string("agent", agent)
        if let count {
            writer.key("count")
            writer.number(String(count))
        }
        strings("otherAgents", otherAgents)
        writer.key("outcome")
        writer.number(String(outcome.rawValue))
        string("patient", patient)
        strings("permissionIds", permissionIDs)
        strings("quirks", quirks.map(\.rawValue))
        string("reason", reason)
        string("recorded", recorded.wireText)
        string("requestHash", requestHash)
        strings("resources", resources)
        string("scope", scope)
        string("tokenId", tokenID)
        string("type", type.rawValue)
        writer.key("v")
        writer.number("1")
        writer.endObject()
        return writer.bytes
    }

    /// The Merkle leaf hash.
    public var leafHash: MerkleHash { .leaf(canonicalBytes) }

    /// Reads canonical bytes back; refuses bytes that are not exactly the canonical encoding of
    /// what they contain (so a rewritten entry cannot hide behind a different spelling).
    public init(canonicalBytes bytes: [UInt8]) throws(AuditEntryError) {
        guard let value = try? JSONParser.parse(bytes, maximumDepth: 4), let object = value.objectValue else { throw .notJSON }
        func string(_ name: String) throws(AuditEntryError) -> String {
            guard let text = object[name]?.stringValue else { throw .invalidMember(name) }
            return text
        }
        func optionalString(_ name: String) throws(AuditEntryError) -> String? {
            guard let member = object[name] else { return nil }
            guard let text = member.stringValue else { throw .invalidMember(name) }
            return text
        }
        func strings(_ name: String) throws(AuditEntryError) -> [String] {
            guard let member = object[name] else { return [] }
            guard let array = member.arrayValue else { throw .invalidMember(name) }
            var result: [String] = []
            for element in array {
                guard let text = element.stringValue else { throw .invalidMember(name) }
                result.append(text)
            }
            return result
        }
        guard object["v"] == .number("1") else { throw .invalidMember("v") }
        guard let type = AuditEventType(rawValue: try string("type")) else { throw .invalidMember("type") }
        let action = try string("action")
        guard AuditEventType.actions.contains(action) else { throw .invalidMember("action") }
        var count: Int?
        if let member = object["count"] {
            guard case .number(let text) = member, let value = Int(text), value > 0 else { throw .invalidMember("count") }
            count = value
        }
        guard let recorded = Timestamp(wireText: try string("recorded")) else { throw .invalidMember("recorded") }
        guard case .number(let outcomeText)? = object["outcome"], let outcomeCode = Int(outcomeText),
              let outcome = AuditOutcome(rawValue: outcomeCode) else { throw .invalidMember("outcome") }
        var quirks: [CompatQuirk] = []
        for name in try strings("quirks") {
            guard let quirk = CompatQuirk(rawValue: name) else { throw .invalidMember("quirks") }
            quirks.append(quirk)
        }
        self.init(type: type, recorded: recorded, outcome: outcome, agent: try string("agent"), patient: try optionalString("patient"),
                  otherAgents: try strings("otherAgents"), permissionIDs: try strings("permissionIds"), tokenID: try optionalString("tokenId"),
                  resources: try strings("resources"), scope: try optionalString("scope"), quirks: quirks,
                  requestHash: try optionalString("requestHash"), reason: try optionalString("reason"), action: action, count: count)
        guard canonicalBytes == bytes else { throw .notCanonical }
    }

    /// A FHIR R4 `AuditEvent` for this entry (BALP shape: `type` rest or FhirBlocks event,
    /// `subtype`, `action`, `recorded`, `outcome`, `agent` with the requestor, `source.observer`,
    /// `entity` for the patient and resources). Identifiers only, like the entry.
    public func auditEvent(observer: String) -> JSONValue {
        func coding(_ system: String, _ code: String) -> JSONValue {
            .object(JSONObject(members: [JSONMember(key: "system", value: .string(system)), JSONMember(key: "code", value: .string(code))]))
        }
        func identifierReference(_ value: String) -> JSONValue {
            if value.contains("/") { return .object(JSONObject(members: [JSONMember(key: "reference", value: .string(value))])) }
            let identifier = JSONObject(members: [JSONMember(key: "system", value: .string(ConsentBuilder.csiSystem)),
                                                  JSONMember(key: "value", value: .string(value))])
            return .object(JSONObject(members: [JSONMember(key: "identifier", value: .object(identifier))]))
        }
        var event = JSONObject()
        event.append("resourceType", "AuditEvent")
        event.append("type", type == .fhirAccess ? coding("http://terminology.hl7.org/CodeSystem/audit-event-type", "rest")
                                                 : coding("urn:fhirblocks:audit-event", type.rawValue))
        event.append("subtype", .array([coding("urn:fhirblocks:audit-event", type.rawValue)]))
        event.append("action", action)
        event.append("recorded", recorded.wireText)
        event.append("outcome", String(outcome.rawValue))
        if let count {
            event.append("outcomeDesc", "\(count) requests refused")
        } else if let reason, type == .sharedLinkAccess || reason.hasPrefix("bulk-export ") {
            // A link request's outcome code (`wrong-passcode`, `refused-expired`, …): the sharer reads why it was refused.
            // A Bulk Data export's counts by type (`bulk-export Observation=3 Patient=1`): the patient reads what was exported.
            event.append("outcomeDesc", reason)
        }
        var agents: [JSONValue] = []
        var requestor = JSONObject()
        requestor.append("who", identifierReference(agent))
        requestor.append("requestor", .bool(true))
        let policies = permissionIDs.map { "urn:fhirblocks:permission:\($0)" } + (tokenID.map { ["urn:fhirblocks:token:\($0)"] } ?? [])
        if !policies.isEmpty { requestor.append("policy", strings: policies) }
        agents.append(.object(requestor))
        for other in otherAgents {
            agents.append(.object(JSONObject(members: [JSONMember(key: "who", value: identifierReference(other)),
                                                       JSONMember(key: "requestor", value: .bool(false))])))
        }
        event.append("agent", .array(agents))
        let display = JSONObject(members: [JSONMember(key: "display", value: .string(observer))])
        event.append("source", .object(JSONObject(members: [JSONMember(key: "observer", value: .object(display))])))
        var entities: [JSONValue] = []
        if let patient {
            entities.append(.object(JSONObject(members: [JSONMember(key: "what", value: identifierReference(patient)),
                                                         JSONMember(key: "role", value: coding("http://terminology.hl7.org/CodeSystem/object-role", "1"))])))
        }
        for resource in resources {
            entities.append(.object(JSONObject(members: [JSONMember(key: "what", value: identifierReference(resource))])))
        }
        if !entities.isEmpty { event.append("entity", .array(entities)) }
        return .object(event)
    }
}
