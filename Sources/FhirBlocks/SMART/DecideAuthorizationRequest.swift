import ExactJSON

/// `POST permission/decideAuthorization`: the wallet's answer to an app's SMART `/authorize`
/// request, named by the user code the authorization page shows. `approve` grants the requested
/// scopes ∩ ``scope`` (all requested when absent) until ``endTime`` (the server's default
/// window when absent); `decline` refuses.
public struct DecideAuthorizationRequest: SignedRequest, Hashable {
    /// The two answers.
    public enum Decision: String, Sendable, Hashable {
        case approve
        case decline
    }

    public var envelope: SMOACEnvelope
    /// The user code as typed (normalised by the server).
    public var userCode: String
    /// `approve` or `decline`, as sent.
    public var decision: String
    /// The scopes the patient chooses to allow (space-separated), or empty for all requested.
    public var scope: String
    /// The end of the granted window (`yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`), or empty for the default.
    public var endTime: String

    public var endpoint: SMOACEndpoint { .decideAuthorization }

    /// Creates a request.
    public init(envelope: SMOACEnvelope, userCode: String, decision: Decision, scope: String = "", endTime: String = "") {
        self.envelope = envelope
        self.userCode = userCode
        self.decision = decision.rawValue
        self.scope = scope
        self.endTime = endTime
    }

    /// Reads the body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.decideAuthorization.path)
        envelope = try SMOACEnvelope(fields: fields, cipherField: .cipher)
        userCode = try fields.string("userCode")
        decision = try fields.string("decision")
        guard Decision(rawValue: decision) != nil else { throw .malformedRequest("\(fields.context): \"decision\" must be approve or decline") }
        scope = try fields.optionalString("scope") ?? ""
        endTime = try fields.optionalString("endTime") ?? ""
        guard endTime.isEmpty || Timestamp(wireText: endTime) != nil else {
            throw .malformedRequest("\(fields.context): \"endTime\" is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        }
        try Self.rejectPipes([("userCode", userCode), ("scope", scope)], context: fields.context)
    }

    /// The decision as a typed value (always valid for a parsed request).
    public var typedDecision: Decision? { Decision(rawValue: decision) }

    /// The end of the window as a timestamp, nil when absent.
    public var end: Timestamp? { endTime.isEmpty ? nil : Timestamp(wireText: endTime) }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("cipher", envelope.cipher)
        object.append("csiGuid", envelope.csiGuid)
        object.append("dateTime", envelope.dateTime)
        object.append("decision", decision)
        if !endTime.isEmpty { object.append("endTime", endTime) }
        object.append("nonce", envelope.nonce)
        if !scope.isEmpty { object.append("scope", scope) }
        object.append("signature", envelope.signature)
        object.append("userCode", userCode)
        return Self.sortedObject(object)
    }

    public func shapeQuirks(mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk] { [] }

    /// `|permission/decideAuthorization|<userCode>|<decision>|<scope>|<endTime>|<csiGuid>|<dateTime>|<nonce>|`
    /// in both modes (no legacy client knows this endpoint).
    public func signedPayloads(mode: ProtocolMode) -> [SignedPayload] {
        [SignedPayload(fields: [endpoint.path, userCode, decision, scope, endTime, envelope.csiGuid, envelope.dateTime, envelope.nonce])]
    }
}
