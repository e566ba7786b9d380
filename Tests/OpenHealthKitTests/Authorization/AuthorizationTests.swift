import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

@Suite("Authorization: per type, read and share separate, denied reads look like no data")
struct AuthorizationTests {
    static let heartRate = HKQuantityType(.heartRate)
    static let steps = HKQuantityType(.stepCount)

    /// A store with heart rates from a watch, and a second app decided by `policy`.
    private func fixture(policy: PolicyFileAuthorizationProvider.Policy) async throws -> (TemporaryFolder, HKHealthStore, HKHealthStore) {
        let folder = TemporaryFolder()
        let watch = TestStores.app(folder, bundle: "com.example.watch")
        try await watch.requestAuthorization(toShare: [Self.heartRate, Self.steps], read: [Self.heartRate])
        try await watch.save((0..<5).map { Samples.heartRate(60 + Double($0), at: Double($0) * 60) })
        let app = TestStores.app(folder, bundle: "com.example.app", provider: PolicyFileAuthorizationProvider(policy: policy))
        return (folder, watch, app)
    }

    @Test("Before any request: status notDetermined, saves fail with errorAuthorizationNotDetermined")
    func notDetermined() async throws {
        let folder = TemporaryFolder()
        let app = TestStores.app(folder, bundle: "com.example.app")
        #expect(app.authorizationStatus(for: Self.steps) == .notDetermined)
        await #expect { try await app.save(Samples.steps(1, at: 0)) } throws: {
            ($0 as? HKError)?.code == .errorAuthorizationNotDetermined
        }
        #expect(try await app.statusForAuthorizationRequest(toShare: [Self.steps], read: []) == .shouldRequest)
        try await app.requestAuthorization(toShare: [Self.steps], read: [])
        #expect(app.authorizationStatus(for: Self.steps) == .sharingAuthorized)
        #expect(try await app.statusForAuthorizationRequest(toShare: [Self.steps], read: []) == .unnecessary)
        #expect(try await app.statusForAuthorizationRequest(toShare: [Self.steps], read: [Self.heartRate]) == .shouldRequest)
        try await app.save(Samples.steps(1, at: 0))
    }

    @Test("A denied share is sharingDenied and saves fail with errorAuthorizationDenied")
    func deniedShare() async throws {
        let (folder, _, app) = try await fixture(policy: .init(apps: [:]))
        defer { withExtendedLifetime(folder) {} }
        try await app.requestAuthorization(toShare: [Self.steps], read: [Self.steps])
        #expect(app.authorizationStatus(for: Self.steps) == .sharingDenied)
        await #expect { try await app.save(Samples.steps(1, at: 0)) } throws: { ($0 as? HKError)?.code == .errorAuthorizationDenied }
    }

    @Test("A denied read is indistinguishable from no data in every query kind")
    func deniedReadLooksEmpty() async throws {
        let (folder, watch, denied) = try await fixture(policy: .init(apps: [:]))
        defer { withExtendedLifetime(folder) {} }
        try await denied.requestAuthorization(toShare: [], read: [Self.heartRate])
        // The status reveals nothing about reading.
        #expect(denied.authorizationStatus(for: Self.heartRate) == .notDetermined)
        // A store with no heart rate at all, for comparison.
        let emptyFolder = TemporaryFolder()
        let empty = TestStores.app(emptyFolder, bundle: "com.example.app")
        try await empty.requestAuthorization(toShare: [], read: [Self.heartRate])

        for store in [denied, empty] {
            #expect(try await store.runSampleQuery(Self.heartRate).isEmpty)
            let anchored = try await store.runAnchoredQuery(Self.heartRate, anchor: nil)
            #expect(anchored.added.isEmpty && anchored.deleted.isEmpty)
            await #expect { _ = try await store.runStatisticsQuery(Self.heartRate, options: .discreteAverage) } throws: {
                ($0 as? HKError)?.code == .errorNoData
            }
            #expect(try await store.runSourceQuery(Self.heartRate).isEmpty)
            let collection = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: Self.heartRate), options: .discreteAverage, anchorDate: Samples.reference,
                intervalComponents: DateComponents(day: 1)).result(for: store)
            #expect(collection.statistics().isEmpty)
            #expect(try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: Self.heartRate), options: .discreteMax)
                .result(for: store) == nil)
        }
        // Deletions are not leaked either.
        let before = try await denied.runAnchoredQuery(Self.heartRate, anchor: nil)
        let all = try await watch.runSampleQuery(Self.heartRate)
        try await watch.delete(all[0])
        let after = try await denied.runAnchoredQuery(Self.heartRate, anchor: before.anchor)
        #expect(after.deleted.isEmpty && after.added.isEmpty)
        withExtendedLifetime(emptyFolder) {}
    }

    @Test("An app that may share but not read sees only its own samples")
    func ownWritesVisible() async throws {
        let policy = PolicyFileAuthorizationProvider.Policy(apps: ["com.example.app": .init(share: ["*"], read: [])])
        let (folder, _, app) = try await fixture(policy: policy)
        defer { withExtendedLifetime(folder) {} }
        try await app.requestAuthorization(toShare: [Self.heartRate], read: [Self.heartRate])
        let mine = Samples.heartRate(99, at: 10_000)
        try await app.save(mine)
        #expect(try await app.runSampleQuery(Self.heartRate).map(\.uuid) == [mine.uuid])
        let statistics = try await app.runStatisticsQuery(Self.heartRate, options: .discreteMax)
        #expect(statistics.maximumQuantity()?.doubleValue(for: Samples.bpm) == 99)
        #expect(try await app.runSourceQuery(Self.heartRate).map(\.bundleIdentifier) == ["com.example.app"])
    }

    @Test("An app may delete only what it saved")
    func deleteOnlyOwn() async throws {
        let (folder, watch, app) = try await fixture(policy: .init(apps: [:], default: .init(share: ["*"], read: ["*"])))
        defer { withExtendedLifetime(folder) {} }
        try await app.requestAuthorization(toShare: [Self.heartRate], read: [Self.heartRate])
        let watchSample = try #require(try await watch.runSampleQuery(Self.heartRate).first)
        await #expect { try await app.delete(watchSample) } throws: { ($0 as? HKError)?.code == .errorAuthorizationDenied }
        #expect(try await app.deleteObjects(of: Self.heartRate, predicate: HKQuery.predicateForObject(with: watchSample.uuid)) == 0)
        #expect(try await watch.runSampleQuery(Self.heartRate).count == 5)
    }

    @Test("Decisions persist with the store and are not asked again")
    func persistence() async throws {
        let folder = TemporaryFolder()
        let asked = Inbox<AuthorizationRequest>()
        struct Recording: AuthorizationProvider {
            let inbox: Inbox<AuthorizationRequest>
            func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
                inbox.append(request)
                return AuthorizationDecision(share: request.share, read: [])
            }
        }
        let first = TestStores.app(folder, bundle: "com.example.app", provider: Recording(inbox: asked))
        try await first.requestAuthorization(toShare: [Self.steps], read: [Self.steps, Self.heartRate])
        let second = TestStores.app(folder, bundle: "com.example.app", provider: Recording(inbox: asked))
        #expect(second.authorizationStatus(for: Self.steps) == .sharingAuthorized)
        try await second.requestAuthorization(toShare: [Self.steps], read: [Self.steps, Self.heartRate])
        #expect(asked.values.count == 1)
        try await second.requestAuthorization(toShare: [Self.heartRate], read: [])
        #expect(asked.values.count == 2)
        #expect(asked.values.last?.share == [Self.heartRate.identifier])
        #expect(asked.values.last?.read == [])
    }

    @Test("An empty request is an invalid argument")
    func emptyRequest() async throws {
        let app = TestStores.app(TemporaryFolder(), bundle: "com.example.app")
        await #expect { try await app.requestAuthorization(toShare: [], read: []) } throws: { ($0 as? HKError)?.code == .errorInvalidArgument }
    }

    @Test("Policy files grant per app, with * and a default")
    func policyFile() async throws {
        let folder = TemporaryFolder()
        let url = folder.url.appendingPathComponent("policy.json")
        try Data("""
            {"apps": {"com.example.steps": {"share": ["HKQuantityTypeIdentifierStepCount"], "read": ["*"]}},
             "default": {"share": [], "read": ["HKQuantityTypeIdentifierStepCount"]}}
            """.utf8).write(to: url)
        let provider = try PolicyFileAuthorizationProvider(contentsOf: url)
        let known = try await provider.decide(AuthorizationRequest(bundleIdentifier: "com.example.steps", appName: "Steps",
                                                                   share: [Self.steps.identifier, Self.heartRate.identifier],
                                                                   read: [Self.heartRate.identifier]))
        #expect(known.share == [Self.steps.identifier] && known.read == [Self.heartRate.identifier])
        let other = try await provider.decide(AuthorizationRequest(bundleIdentifier: "x", appName: "X", share: [Self.steps.identifier],
                                                                   read: [Self.steps.identifier, Self.heartRate.identifier]))
        #expect(other.share.isEmpty && other.read == [Self.steps.identifier])
        try Data("{ not json".utf8).write(to: url)
        #expect(throws: HKError.self) { try PolicyFileAuthorizationProvider(contentsOf: url) }
    }

    @Test("The terminal provider asks per type and grants only yes answers")
    func terminalPrompt() async throws {
        let answers = Inbox<String>()
        let script = Mutex(["y", "no", "YES"])
        let provider = TerminalAuthorizationProvider(
            readLine: { script.withLock { $0.isEmpty ? nil : $0.removeFirst() } },
            write: { answers.append($0) })
        let decision = try await provider.decide(AuthorizationRequest(
            bundleIdentifier: "com.example.app", appName: "Example",
            share: [Self.heartRate.identifier, Self.steps.identifier], read: [Self.steps.identifier, HKObjectType.workoutType().identifier]))
        // Sorted order: share heart rate (y), share steps (no); read steps (YES), read workouts (end of input → deny).
        #expect(decision.share == [Self.heartRate.identifier])
        #expect(decision.read == [Self.steps.identifier])
        let transcript = answers.values.joined()
        #expect(transcript.contains("Example") && transcript.contains("Allow writing Heart Rate?") && transcript.contains("Workouts"))
    }
}

import Synchronization
