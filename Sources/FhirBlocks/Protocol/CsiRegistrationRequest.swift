import ExactJSON

/// `POST csi/requestCsiRegistration` (§1.4): binds a fresh csiGuid to a P-256 public key.
///
/// The signature proves possession of the key in the same request; `csiGuid` and
/// `applicationClass` are not part of the legacy payload.
public struct CsiRegistrationRequest: SignedRequest, Hashable {
    /// For example `org.fhirblocks.dapp`.
    public var applicationClass: String
    /// Envelope members; the cipher is sent as `cipherSpec`.
    public var envelope: SMOACEnvelope
    /// The device identifier received from the wallet (uppercase UUID on iOS).
    public var deviceId: String
    /// Public claims (empty values for apps, demographics for wallets).
    public var publicClaims: [PublicClaim]
    /// Base64 DER SubjectPublicKeyInfo of the P-256 key (124 characters).
    public var publicKey: String

    public var endpoint: SMOACEndpoint { .requestCsiRegistration }

    /// Creates a request.
    public init(applicationClass: String, envelope: SMOACEnvelope, deviceId: String, publicClaims: [PublicClaim], publicKey: String) {
        self.applicationClass = applicationClass
        self.envelope = envelope
        self.deviceId = deviceId
        self.publicClaims = publicClaims
        self.publicKey = publicKey
    }

    /// Reads the body.
    public init(json: JSONValue) throws(SMOACError) {
        let fields = try JSONFields(json, context: SMOACEndpoint.requestCsiRegistration.path)
        applicationClass = try fields.string("applicationClass")
        envelope = try SMOACEnvelope(fields: fields, cipherField: .cipherSpec)
        deviceId = try fields.string("deviceId")
        guard !deviceId.isEmpty else { throw .malformedRequest("\(fields.context): \"deviceId\" is empty") }
        // Kept for as long as the registration (and in the server's memory): bounded.
        for (name, value) in [("deviceId", deviceId), ("applicationClass", applicationClass)] where value.utf8.count > Self.maximumFieldLength {
            throw .malformedRequest("\(fields.context): \"\(name)\" is longer than \(Self.maximumFieldLength) bytes")
        }
        publicClaims = try PublicClaim.list(from: try fields.array("publicClaims"), context: "\(fields.context).publicClaims")
        publicKey = try fields.string("publicKey")
        try Self.rejectPipes([("publicKey", publicKey), ("deviceId", deviceId), ("applicationClass", applicationClass), ("csiGuid", envelope.csiGuid)],
                             context: fields.context)
    }

    /// The longest `deviceId` or `applicationClass` accepted, in bytes.
    public static let maximumFieldLength = 256

    public var json: JSONValue {
        var object = JSONObject()
        object.append("applicationClass", applicationClass)
        object.append("cipherSpec", envelope.cipher)
        object.append("csiGuid", envelope.csiGuid)
        object.append("dateTime", envelope.dateTime)
        object.append("deviceId", deviceId)
        object.append("nonce", envelope.nonce)
        object.append("publicClaims", .array(publicClaims.map(\.json)))
        object.append("publicKey", publicKey)
        object.append("signature", envelope.signature)
        return Self.sortedObject(object)
    }

    public func shapeQuirks(mode: ProtocolMode) throws(SMOACError) -> [CompatQuirk] { [] }
}
