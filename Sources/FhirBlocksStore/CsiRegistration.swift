import FhirBlocks

/// A registered Client System Identity: the ⟨app, device⟩ pair and its P-256 key (§1.4
/// `csi/requestCsiRegistration`).
public struct CsiRegistration: Sendable, Hashable {
    /// The csiGuid.
    public var csiGuid: CsiGuid
    /// The key every later request is verified with.
    public var publicKey: CsiPublicKey
    /// The device identifier that was signed at registration (compared with `sta`).
    public var deviceId: String
    /// The application class the client sent (`org.fhirblocks.dapp`, `org.fhirblocks.csa`…).
    public var applicationClass: String
    /// The public claims (demographics for a wallet, empty values for apps).
    public var claims: [PublicClaim]
    /// When it was registered.
    public var registeredAt: Timestamp

    /// Creates a registration.
    public init(csiGuid: CsiGuid, publicKey: CsiPublicKey, deviceId: String, applicationClass: String, claims: [PublicClaim], registeredAt: Timestamp) {
        self.csiGuid = csiGuid
        self.publicKey = publicKey
        self.deviceId = deviceId
        self.applicationClass = applicationClass
        self.claims = claims
        self.registeredAt = registeredAt
    }

    /// The same registration with no claims (what the server keeps in memory).
    public var withoutClaims: CsiRegistration {
        var copy = self
        copy.claims = []
        return copy
    }

    /// Whether this identity is a patient's wallet (CSA): its application class names a wallet
    /// (`csa`, `wallet` or `healthwallet`, any case, as the whole class or its last dotted
    /// part). Everything else is an app. A wallet is the patient of its own data.
    public var isWallet: Bool { Self.isWalletClass(applicationClass) }

    /// The wallet rule of ``isWallet`` for an application class.
    public static func isWalletClass(_ applicationClass: String) -> Bool {
        let last = applicationClass.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return ["csa", "fblockscsa", "wallet", "healthwallet"].contains(last)
    }
}
