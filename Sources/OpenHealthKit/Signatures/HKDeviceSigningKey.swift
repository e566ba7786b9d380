import Crypto
import Foundation
import SampleSignatures

/// A device public key the owner trusts to sign samples (OpenHealthKit API).
public struct HKDeviceSigningKey: Sendable, Hashable {
    /// The key's identifier, as signatures name their signer.
    public var identifier: DeviceKeyIdentifier { DeviceKeyIdentifier(publicKey) }
    /// The P-256 public key.
    public let publicKey: P256.Signing.PublicKey
    /// The owner's name for the device.
    public let name: String
    /// When the owner registered it.
    public let registeredAt: Date

    /// A key as the store records it.
    public init(publicKey: P256.Signing.PublicKey, name: String, registeredAt: Date) {
        self.publicKey = publicKey
        self.name = name
        self.registeredAt = registeredAt
    }

    public static func == (lhs: HKDeviceSigningKey, rhs: HKDeviceSigningKey) -> Bool {
        lhs.publicKey.x963Representation == rhs.publicKey.x963Representation && lhs.name == rhs.name && lhs.registeredAt == rhs.registeredAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(publicKey.x963Representation)
        hasher.combine(name)
    }
}
