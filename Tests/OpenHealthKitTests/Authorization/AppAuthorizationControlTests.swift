import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// The owner lists, changes, revokes and resets apps' decisions; the app's next call obeys.
struct AppAuthorizationControlTests {
    private let steps = HKQuantityType(.stepCount)
    private let heartRate = HKQuantityType(.heartRate)

    @Test func theOwnerSeesAndChangesWhatAnAppWasAllowed() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try await owner.save([Samples.steps(500, at: 0), Samples.heartRate(70, at: 0)])
        let app = TestStores.app(folder, bundle: "org.example.coach")
        try await app.requestAuthorization(toShare: [steps], read: [steps, heartRate])
        #expect(try await app.runSampleQuery(steps).count == 1)
        #expect(app.authorizationStatus(for: steps) == .sharingAuthorized)

        let listed = try owner.appAuthorizationDecisions()
        #expect(listed.map(\.typeIdentifier).sorted() == [heartRate.identifier, steps.identifier].sorted())
        #expect(listed.allSatisfy { $0.bundleIdentifier == "org.example.coach" && $0.read == .authorized })

        // Reading steps denied: the same app object's next query sees no data, as a denial looks.
        try owner.setAppAuthorization(bundleIdentifier: "org.example.coach", type: steps, read: .denied)
        #expect(try await app.runSampleQuery(steps).isEmpty)
        #expect(try await app.runSampleQuery(heartRate).count == 1)

        // Revoked: nothing read, nothing saved.
        try owner.revokeAppAuthorization(bundleIdentifier: "org.example.coach")
        #expect(try await app.runSampleQuery(heartRate).isEmpty)
        #expect(app.authorizationStatus(for: steps) == .sharingDenied)
        await #expect(throws: HKError.self) { try await app.save(Samples.steps(1, at: 60)) }

        // Reset: the app may ask again.
        try owner.resetAppAuthorization(bundleIdentifier: "org.example.coach")
        #expect(try owner.appAuthorizationDecisions().isEmpty)
        #expect(app.authorizationStatus(for: steps) == .notDetermined)
    }

    @Test func onlyTheOwnerManagesApps() async throws {
        let folder = TemporaryFolder()
        let app = TestStores.app(folder, bundle: "org.example.coach")
        try await app.requestAuthorization(toShare: [steps], read: [steps])
        #expect(throws: HKError.self) { try app.appAuthorizationDecisions() }
        #expect(throws: HKError.self) { try app.setAppAuthorization(bundleIdentifier: "org.example.coach", type: steps, read: .authorized) }
        #expect(throws: HKError.self) { try app.revokeAppAuthorization(bundleIdentifier: "org.example.other") }
        let owner = TestStores.owner(folder)
        #expect(throws: HKError.self) {
            try owner.setAppAuthorization(bundleIdentifier: "org.example.coach", type: HKCharacteristicType(.dateOfBirth), share: .authorized)
        }
    }
}
