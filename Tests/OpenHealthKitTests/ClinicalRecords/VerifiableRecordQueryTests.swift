import Foundation
@testable import OpenHealthKit
import Testing

/// Chooses like a person at the "Share Once" sheet, and remembers what it was asked.
final class ChoosingProvider: AuthorizationProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [VerifiableRecordShareRequest] = []
    let choose: @Sendable (VerifiableRecordShareRequest) -> VerifiableRecordShareDecision

    init(choose: @escaping @Sendable (VerifiableRecordShareRequest) -> VerifiableRecordShareDecision) {
        self.choose = choose
    }

    var requests: [VerifiableRecordShareRequest] { lock.withLock { asked } }

    func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        AuthorizationDecision(share: [], read: [])
    }

    func decideVerifiableRecordShare(_ request: VerifiableRecordShareRequest) async throws -> VerifiableRecordShareDecision {
        lock.withLock { asked.append(request) }
        return choose(request)
    }
}

@Suite("Verifiable clinical records: per-record, one-time sharing")
struct VerifiableRecordQueryTests {
    let day = Date(timeIntervalSince1970: 1_700_000_000)
    typealias F = HealthRecordFixtures

    /// Three cards: two immunization cards from two issuers, one laboratory card.
    private func seed(_ folder: TemporaryFolder) async throws -> [HKVerifiableClinicalRecord] {
        let cards = [
            F.card("h1.p1.s1", types: [F.healthCard, F.immunization], relevant: day),
            F.card("h2.p2.s2", types: [F.healthCard, F.immunization], issuer: "https://other.example.org", relevant: day.addingTimeInterval(-400 * 86_400)),
            F.card("h3.p3.s3", types: [F.healthCard, F.laboratory], relevant: day.addingTimeInterval(-86_400), items: ["SARS-CoV-2 PCR"]),
        ]
        try await TestStores.owner(folder).saveHealthRecords(cards, source: HKSource(name: "Cards", bundleIdentifier: "org.openhealthkit.records.cards"))
        return cards
    }

    private func run(_ store: HKHealthStore, types: [String], sourceTypes: [HKVerifiableClinicalRecordSourceType] = [.smartHealthCard],
                     predicate: NSPredicate? = nil) async throws -> [HKVerifiableClinicalRecord] {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(HKVerifiableClinicalRecordQuery(recordTypes: types, sourceTypes: sourceTypes, predicate: predicate) { _, records, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: records ?? []) }
            })
        }
    }

    @Test("The owner's consent shares every match; each execution is recorded")
    func ownerConsent() async throws {
        let folder = TemporaryFolder()
        let cards = try await seed(folder)
        let app = TestStores.app(folder, bundle: "com.example.venue", name: "Venue")
        let shared = try await run(app, types: [F.immunization])
        #expect(Set(shared.map(\.uuid)) == Set([cards[0].uuid, cards[1].uuid]))
        let record = try #require(shared.first { $0.uuid == cards[0].uuid })
        #expect(record.jwsRepresentation == Data("h1.p1.s1".utf8))
        #expect(record.dataRepresentation == record.jwsRepresentation)
        #expect(record.subject.fullName == "John B. Anyperson")
        #expect(record.subject.dateOfBirthComponents == DateComponents(year: 1951, month: 1, day: 20))
        #expect(record.relevantDate == day && record.startDate == day)
        #expect(record.issuerIdentifier == F.issuer)
        #expect(record.sourceType == .smartHealthCard)
        #expect(record.itemNames == ["COVID-19, mRNA"])

        let again = try await HKVerifiableClinicalRecordQueryDescriptor(recordTypes: [.laboratory], sourceTypes: [.smartHealthCard]).result(for: app)
        #expect(again.map(\.uuid) == [cards[2].uuid])
        let shares = try await TestStores.owner(folder).verifiableRecordShares()
        #expect(shares.count == 2)
        #expect(shares.allSatisfy { $0.bundleIdentifier == "com.example.venue" && $0.appName == "Venue" && !$0.declined })
        #expect(Set(shares[0].recordUUIDs) == Set([cards[0].uuid, cards[1].uuid]))
        #expect(shares[1].recordUUIDs == [cards[2].uuid])
        await #expect(throws: HKError.self) { try await app.verifiableRecordShares() }
    }

    @Test("A record matches only when it carries every requested type; EU certificates find nothing")
    func matching() async throws {
        let folder = TemporaryFolder()
        let cards = try await seed(folder)
        let app = TestStores.app(folder, bundle: "com.example.app")
        #expect(try await run(app, types: [F.immunization, F.laboratory]).isEmpty)
        #expect(try await run(app, types: [F.healthCard]).count == 3)
        #expect(try await run(app, types: [F.immunization], sourceTypes: [.euDigitalCOVIDCertificate]).isEmpty)
        let lastWeek = HKQuery.predicateForVerifiableClinicalRecords(withRelevantDateWithin: DateInterval(start: day.addingTimeInterval(-7 * 86_400), end: day))
        #expect(Set(try await run(app, types: [F.healthCard], predicate: lastWeek).map(\.uuid)) == Set([cards[0].uuid, cards[2].uuid]))
    }

    @Test("Only the records the provider chose come back, every execution asks again, declining is errorUserCanceled")
    func chosenOnly() async throws {
        let folder = TemporaryFolder()
        let cards = try await seed(folder)
        let firstOnly = ChoosingProvider { request in .share([request.records[0].uuid, UUID()]) }
        let app = TestStores.app(folder, bundle: "com.example.picky", provider: firstOnly)
        let first = try await run(app, types: [F.healthCard])
        let second = try await run(app, types: [F.healthCard])
        #expect(first.count == 1 && second.count == 1)
        #expect(firstOnly.requests.count == 2, "each execution asks")
        #expect(firstOnly.requests[0].records.count == 3)
        #expect(firstOnly.requests[0].records.map(\.relevantDate) == firstOnly.requests[0].records.map(\.relevantDate).sorted())
        #expect(Set(cards.map(\.uuid)).contains(first[0].uuid))

        let decliner = ChoosingProvider { _ in .decline }
        let declining = TestStores.app(folder, bundle: "com.example.declined", provider: decliner)
        do {
            _ = try await run(declining, types: [F.immunization])
            Issue.record("a declined query returned records")
        } catch let error as HKError {
            #expect(error.code == .errorUserCanceled)
        }
        let shares = try await TestStores.owner(folder).verifiableRecordShares()
        #expect(shares.last?.declined == true && shares.last?.recordUUIDs.isEmpty == true)

        // A provider that implements only decide(_:) shares nothing.
        struct TypesOnly: AuthorizationProvider {
            func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision { .init(share: request.share, read: request.read) }
        }
        await #expect(throws: HKError.self) { try await run(TestStores.app(folder, bundle: "com.example.types", provider: TypesOnly()), types: []) }
    }

    @Test("A policy file chooses by issuer, record type and record; no rule declines")
    func policy() async throws {
        let folder = TemporaryFolder()
        let cards = try await seed(folder)
        let policy = PolicyFileAuthorizationProvider(policy: .init(apps: [:], verifiableRecords: [
            "com.example.issuer": [.init(issuers: [F.issuer])],
            "com.example.lab": [.init(recordTypes: [F.laboratory])],
            "com.example.one": [.init(records: [cards[1].uuid])],
        ]))
        func shared(_ bundle: String) async throws -> Set<UUID> {
            Set(try await run(TestStores.app(folder, bundle: bundle, provider: policy), types: [F.healthCard]).map(\.uuid))
        }
        #expect(try await shared("com.example.issuer") == Set([cards[0].uuid, cards[2].uuid]))
        #expect(try await shared("com.example.lab") == [cards[2].uuid])
        #expect(try await shared("com.example.one") == [cards[1].uuid])
        await #expect(throws: HKError.self) { try await shared("com.example.unlisted") }

        let json = Data("""
            {"apps": {}, "defaultVerifiableRecords": [{"recordTypes": ["\(F.immunization)"], "issuers": ["https://other.example.org"]}]}
            """.utf8)
        let file = folder.url.appendingPathComponent("policy.json")
        try json.write(to: file)
        let fromFile = try PolicyFileAuthorizationProvider(contentsOf: file)
        #expect(Set(try await run(TestStores.app(folder, bundle: "com.example.any", provider: fromFile), types: []).map(\.uuid)) == [cards[1].uuid])
    }

    @Test("The terminal provider lists the matches and shares the numbers typed")
    func terminal() async throws {
        let answers = Mutex(["2", ""])
        let output = Mutex("")
        let terminal = TerminalAuthorizationProvider(readLine: { answers.withLock { $0.isEmpty ? nil : $0.removeFirst() } },
                                                     write: { text in output.withLock { $0 += text } })
        let folder = TemporaryFolder()
        let cards = try await seed(folder)
        let app = TestStores.app(folder, bundle: "com.example.term", name: "Term\u{1B}[2J", provider: terminal)
        let shared = try await run(app, types: [F.healthCard])
        #expect(shared.count == 1)
        #expect(Set(cards.map(\.uuid)).contains(shared[0].uuid))
        #expect(output.withLock { $0 }.contains("SARS-CoV-2 PCR"))
        #expect(!output.withLock { $0 }.contains("\u{1B}"))
        await #expect(throws: HKError.self) { try await run(app, types: [F.healthCard]) }
    }

    @Test("Apps never see verifiable records through sample queries or type authorization")
    func noTypeAccess() async throws {
        let folder = TemporaryFolder()
        _ = try await seed(folder)
        let app = TestStores.app(folder, bundle: "com.example.sneaky")
        await #expect(throws: HKError.self) {
            try await app.requestAuthorization(toShare: [], read: [HKObjectType.verifiableClinicalRecordType()])
        }
        #expect(try await app.runSampleQuery(HKObjectType.verifiableClinicalRecordType()).isEmpty)
        #expect(try await TestStores.owner(folder).runSampleQuery(HKObjectType.verifiableClinicalRecordType()).count == 3)
        // The same card imported twice is one record.
        try await TestStores.owner(folder).saveHealthRecords([F.card("h1.p1.s1", types: [F.immunization], relevant: day)],
                                                             source: HKSource(name: "Cards", bundleIdentifier: "org.openhealthkit.records.cards"))
        #expect(try await TestStores.owner(folder).runSampleQuery(HKObjectType.verifiableClinicalRecordType()).count == 3)
    }
}

import Synchronization
