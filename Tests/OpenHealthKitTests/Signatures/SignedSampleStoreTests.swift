import Crypto
import Foundation
import SampleSignatures
import Testing
@testable import OpenHealthKit

@Suite("Signed samples in the store")
struct SignedSampleStoreTests {
    let device = P256.Signing.PrivateKey()

    private func glucose(_ value: Double, unit: HKUnit = HKUnit(from: "mg/dL"), metadata: [String: Any]? = nil) -> HKQuantitySample {
        HKQuantitySample(type: HKQuantityType(.bloodGlucose), quantity: HKQuantity(unit: unit, doubleValue: value),
                         start: Samples.reference, end: Samples.reference.addingTimeInterval(0.25), metadata: metadata)
    }

    @Test("A sample signed by a registered device key verifies after a save and a read, in another unit too")
    func signedSamplesVerifyAfterARoundTrip() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let identifier = try await store.registerDeviceKey(device.publicKey, name: "Meter").identifier
        let signed = try glucose(97, metadata: [HKMetadataKeySyncIdentifier: "m-1", HKMetadataKeySyncVersion: 1]).signed(with: device)
        let sleep = try Samples.sleep(.asleepDeep, at: 0, minutes: 30).signed(with: device)
        try await store.save([signed, sleep, glucose(98)])
        let read = try await store.runSampleQuery(HKQuantityType(.bloodGlucose), sort: [NSSortDescriptor(key: "startDate", ascending: true)])
            + store.runSampleQuery(HKCategoryType(.sleepAnalysis))
        let verdicts = try await store.signatureVerdicts(for: read)
        let byUUID = Dictionary(uniqueKeysWithValues: zip(read.map(\.uuid), verdicts))
        #expect(byUUID[signed.uuid] == .valid(signer: identifier))
        #expect(byUUID[sleep.uuid] == .valid(signer: identifier))
        #expect(verdicts.filter { $0 == .unsigned }.count == 1)
        // Signed in mmol/L, checked against the same sample (HealthKit converts with the molar mass).
        let mmol = try HKUnit.parse("mmol<180.15588000005408>/L")
        let inMmol = try glucose(5.4, unit: mmol).signed(with: device)
        #expect(try await store.signatureVerdicts(for: [inMmol]) == [.valid(signer: identifier)])
        // A new store object on the same file still trusts the key.
        #expect(try await TestStores.owner(folder).deviceSigningKeys().map(\.name) == ["Meter"])
    }

    @Test("A changed value, a copied signature, an unknown key and a malformed value each get their own verdict")
    func typedVerdicts() async throws {
        let store = TestStores.memory()
        let identifier = try await store.registerDeviceKey(device.publicKey, name: "Meter").identifier
        let signed = try glucose(97).signed(with: device)
        let signature = try #require(signed.metadata?[HKMetadataKeyDigitalSignature] as? String)
        let tampered = glucose(107, metadata: [HKMetadataKeyDigitalSignature: signature])
        let otherDate = HKQuantitySample(type: HKQuantityType(.bloodGlucose), quantity: HKQuantity(unit: HKUnit(from: "mg/dL"), doubleValue: 97),
                                         start: Samples.reference.addingTimeInterval(60), end: Samples.reference.addingTimeInterval(60),
                                         metadata: [HKMetadataKeyDigitalSignature: signature])
        let stranger = P256.Signing.PrivateKey()
        let unknown = try glucose(97).signed(with: stranger)
        let garbage = glucose(97, metadata: [HKMetadataKeyDigitalSignature: "AAAA"])
        let steps = Samples.steps(10, at: 0, metadata: [HKMetadataKeyDigitalSignature: signature])
        let verdicts = try await store.signatureVerdicts(for: [tampered, otherDate, unknown, garbage, steps])
        #expect(verdicts[0] == .contentMismatch(signer: identifier, field: .value))
        #expect(verdicts[1] == .contentMismatch(signer: identifier, field: .startDate))
        #expect(verdicts[2] == .unknownKey(DeviceKeyIdentifier(stranger.publicKey)))
        #expect(verdicts[3].label == "malformed")
        // A glucose signature on a step count: the signed unit does not measure steps.
        #expect(verdicts[4] == .contentMismatch(signer: identifier, field: .unit))
        // Once the key is removed, its signatures are from an unknown key.
        #expect(try await store.removeDeviceKey(identifier))
        #expect(try await store.removeDeviceKey(identifier) == false)
        #expect(try await store.signatureVerdicts(for: [signed]) == [.unknownKey(identifier)])
    }

    @Test("Only the owner registers or removes device keys")
    func onlyTheOwnerManagesKeys() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).registerDeviceKey(device.publicKey, name: "Meter")
        let app = TestStores.app(folder, bundle: "com.example.app")
        await #expect(throws: HKError.self) { try await app.registerDeviceKey(P256.Signing.PrivateKey().publicKey, name: "Mine") }
        await #expect(throws: HKError.self) { try await app.removeDeviceKey(DeviceKeyIdentifier(device.publicKey)) }
        // Apps may still check signatures against the owner's keys.
        #expect(try await app.signatureVerdicts(for: [glucose(97).signed(with: device)]).first?.isValid == true)
    }

    @Test("Workouts and correlations cannot be signed; dates outside the years 1–9999 are refused")
    func unsignable() throws {
        let ancient = HKQuantitySample(type: HKQuantityType(.bloodGlucose), quantity: HKQuantity(unit: HKUnit(from: "mg/dL"), doubleValue: 1),
                                       start: .distantPast, end: .distantPast)
        #expect(throws: HKError.self) { try ancient.signed(with: device) }
        let workout = HKWorkout(activityType: .running, start: Samples.reference, end: Samples.reference.addingTimeInterval(60))
        #expect(workout.signatureContent() == nil)
    }
}
