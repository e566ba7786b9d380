import Crypto
import Foundation
import SampleSignatures

/// Signed samples (OpenHealthKit API): the owner registers the public keys of the devices it
/// trusts, and any caller asks for the verdict on the samples it reads.
extension HKHealthStore {
    /// Trusts a device's public key for sample signatures. Registering a key again renames it.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as the owner.
    @discardableResult
    public func registerDeviceKey(_ publicKey: P256.Signing.PublicKey, name: String) async throws -> HKDeviceSigningKey {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the owner registers device keys") }
        let key = HKDeviceSigningKey(publicKey: publicKey, name: name, registeredAt: configuration.now())
        try await engine.databaseAsync().registerDeviceKey(key)
        return key
    }

    /// Stops trusting a device key. Returns whether it was registered.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as the owner.
    @discardableResult
    public func removeDeviceKey(_ identifier: DeviceKeyIdentifier) async throws -> Bool {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the owner removes device keys") }
        return try await engine.databaseAsync().removeDeviceKey(identifier)
    }

    /// The trusted device keys, by name.
    public func deviceSigningKeys() async throws -> [HKDeviceSigningKey] {
        try await engine.databaseAsync().deviceKeys()
    }

    /// The verdict on each sample's `HKMetadataKeyDigitalSignature` against the trusted device
    /// keys, in the order of `samples`: unsigned, valid, or why not (an unknown key, a signature
    /// that does not verify, content that differs from the sample, another algorithm, a
    /// malformed value).
    public func signatureVerdicts(for samples: [HKSample]) async throws -> [SampleSignatureVerdict] {
        let verifier = SampleSignatureVerifier(trustedKeys: try await deviceSigningKeys().map(\.publicKey))
        return samples.map { $0.signatureVerdict(verifier) }
    }
}
