import FHIRCore
import Foundation
@testable import HealthSharing
import OpenHealthKit
import SmartHealthLinks
import Testing
import TestSupport

/// Stores holding clinical records and cards as an import leaves them.
enum ShareFixtures {
    static let day = Date(timeIntervalSince1970: 1_760_000_000)

    static func store() -> HKHealthStore {
        let store = HKHealthStore(configuration: .init(location: .inMemory, source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"),
                                                       role: .owner))
        return store
    }

    static func resource(_ type: String, id: String, _ members: [JSONMember]) -> JSONValue {
        .object(members: [JSONMember("resourceType", .string(type)), JSONMember("id", .string(id))] + members)
    }

    static func subject(_ id: String = "p1", display: String? = "Ana Ruiz") -> JSONMember {
        var reference = [JSONMember("reference", .string("Patient/\(id)"))]
        if let display { reference.append(JSONMember("display", .string(display))) }
        return JSONMember("subject", .object(members: reference))
    }

    static func code(_ text: String) -> JSONMember {
        JSONMember("code", .object(members: [JSONMember("text", .string(text))]))
    }

    static func record(_ identifier: HKClinicalTypeIdentifier, _ resource: JSONValue, name: String, offset: TimeInterval = 0,
                       version: HKFHIRVersion = .primaryR4()) -> HKClinicalRecord {
        let type = resource["resourceType"]?.stringValue ?? "Observation"
        let id = resource["id"]?.stringValue ?? UUID().uuidString
        let fhir = HKFHIRResource(resourceType: HKFHIRResourceType(rawValue: type), identifier: id, data: Data(JSONWriter.serialize(resource)),
                                  sourceURL: URL(string: "https://fhir.example.org/r4/\(type)/\(id)"), fhirVersion: version)
        let start = day.addingTimeInterval(offset)
        return HKClinicalRecord(type: HKClinicalType(identifier), startDate: start, endDate: start, displayName: name, fhirResource: fhir)
    }

    /// One record of each summary section, a procedure, a coverage and a DSTU2 allergy.
    static func everyKind() -> [HKClinicalRecord] {
        [
            record(.allergyRecord, resource("AllergyIntolerance", id: "al1", [code("Peanut"), JSONMember("patient", .object(members: [
                JSONMember("reference", .string("Patient/p1")), JSONMember("display", .string("Ana Ruiz"))]))]), name: "Peanut", offset: 1),
            record(.medicationRecord, resource("MedicationStatement", id: "me1", [JSONMember("status", .string("active")), subject(),
                JSONMember("medicationCodeableConcept", .object(members: [JSONMember("text", .string("Metformin"))]))]), name: "Metformin", offset: 2),
            record(.conditionRecord, resource("Condition", id: "co1", [code("Diabetes <type 2>"), subject()]), name: "Diabetes <type 2>", offset: 3),
            record(.immunizationRecord, resource("Immunization", id: "im1", [JSONMember("status", .string("completed")),
                JSONMember("vaccineCode", .object(members: [JSONMember("text", .string("Influenza"))])),
                JSONMember("patient", .object(members: [JSONMember("reference", .string("Patient/p1"))])),
                JSONMember("occurrenceDateTime", .string("2025-10-01"))]), name: "Influenza", offset: 4),
            record(.labResultRecord, resource("Observation", id: "lab1", [JSONMember("status", .string("final")), code("HbA1c"), subject()]),
                   name: "HbA1c", offset: 5),
            record(.vitalSignRecord, resource("Observation", id: "vs1", [JSONMember("status", .string("final")), code("Blood pressure"), subject()]),
                   name: "Blood pressure", offset: 6),
            record(.procedureRecord, resource("Procedure", id: "pr1", [JSONMember("status", .string("completed")), code("Appendectomy"), subject()]),
                   name: "Appendectomy", offset: 7),
            record(.coverageRecord, resource("Coverage", id: "cv1", [JSONMember("status", .string("active"))]), name: "Coverage", offset: 8),
            record(.allergyRecord, resource("AllergyIntolerance", id: "dstu2", [JSONMember("substance", .object(members: [
                JSONMember("text", .string("Old"))]))]), name: "Old DSTU2 allergy", offset: 9, version: .primaryDSTU2()),
        ]
    }

    static func card(name: String = "Ana Ruiz", jws: String = "eyJhbGciOiJFUzI1NiJ9.e30.sig") -> HKVerifiableClinicalRecord {
        HKVerifiableClinicalRecord(recordTypes: ["https://smarthealth.cards#immunization"], issuerIdentifier: "https://issuer.example",
                                   subject: HKVerifiableClinicalRecordSubject(fullName: name,
                                                                              dateOfBirthComponents: DateComponents(year: 1980, month: 2, day: 3)),
                                   issuedDate: day, relevantDate: day, expirationDate: nil, itemNames: ["COVID-19"],
                                   sourceType: nil, dataRepresentation: Data(jws.utf8))
    }

    static func parse(_ file: ShareFile) throws -> JSONValue {
        try JSONParser.parse(file.content)
    }
}

@Suite("HealthSharing: the files a link carries, built from the store")
struct ShareFilesTests {
    @Test("The summary is a document Bundle: a Composition first, with the six IPS sections referencing entries of the Bundle")
    func summaryShape() async throws {
        let store = ShareFixtures.store()
        try await store.saveHealthRecords(ShareFixtures.everyKind(), source: HKSource(name: "Clinic", bundleIdentifier: "org.example.clinic"))
        let file = try await ShareFileBuilder(store: store).summaryFile(now: ShareFixtures.day)
        #expect(file.contentType == "application/fhir+json")
        let bundle = try ShareFixtures.parse(file)
        #expect(bundle["resourceType"]?.stringValue == "Bundle")
        #expect(bundle["type"]?.stringValue == "document")
        #expect(bundle["identifier"]?["value"]?.stringValue?.hasPrefix("urn:uuid:") == true)
        #expect(bundle["timestamp"]?.stringValue == "2025-10-09T08:53:20Z")
        let entries = try #require(bundle["entry"]?.arrayValue)
        var byURL: [String: JSONValue] = [:]
        for entry in entries {
            let url = try #require(entry["fullUrl"]?.stringValue)
            #expect(byURL[url] == nil, "fullUrl \(url) twice")
            byURL[url] = entry["resource"]
        }
        let composition = try #require(entries.first?["resource"])
        #expect(composition["resourceType"]?.stringValue == "Composition")
        #expect(composition["status"]?.stringValue == "final")
        #expect(composition["type"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "60591-5")
        #expect(composition["type"]?["coding"]?.arrayValue?.first?["system"]?.stringValue == "http://loinc.org")
        let patientURL = try #require(composition["subject"]?["reference"]?.stringValue)
        #expect(byURL[patientURL]?["resourceType"]?.stringValue == "Patient")
        #expect(composition["author"]?.arrayValue?.isEmpty == false)

        let sections = try #require(composition["section"]?.arrayValue)
        let codes = sections.compactMap { $0["code"]?["coding"]?.arrayValue?.first?["code"]?.stringValue }
        #expect(Array(codes.prefix(6)) == ["48765-2", "10160-0", "11450-4", "11369-6", "30954-2", "8716-3"])
        #expect(codes.count == 7 && codes.last == "47519-4", "procedures are present, so their section is added")
        let expected: [String: (type: String, id: String)] = [
            "48765-2": ("AllergyIntolerance", "al1"), "10160-0": ("MedicationStatement", "me1"), "11450-4": ("Condition", "co1"),
            "11369-6": ("Immunization", "im1"), "30954-2": ("Observation", "lab1"), "8716-3": ("Observation", "vs1"),
            "47519-4": ("Procedure", "pr1"),
        ]
        for section in sections {
            let code = try #require(section["code"]?["coding"]?.arrayValue?.first?["code"]?.stringValue)
            let references = try #require(section["entry"]?.arrayValue, "section \(code) has entries")
            #expect(references.count == 1, "section \(code): one record (the DSTU2 allergy is left out)")
            let resource = try #require(references.first?["reference"]?.stringValue.flatMap { byURL[$0] }, "section \(code) references an entry")
            #expect(resource["resourceType"]?.stringValue == expected[code]?.type)
            #expect(resource["id"]?.stringValue == expected[code]?.id)
            #expect(section["text"]?["div"]?.stringValue?.hasPrefix("<div xmlns=\"http://www.w3.org/1999/xhtml\">") == true)
        }
        // Escaped narrative; the coverage and the DSTU2 record are not in the summary.
        #expect(sections[2]["text"]?["div"]?.stringValue?.contains("Diabetes &lt;type 2&gt;") == true)
        #expect(!entries.contains { $0["resource"]?["resourceType"]?.stringValue == "Coverage" })
        #expect(!entries.contains { $0["resource"]?["id"]?.stringValue == "dstu2" })
        #expect(entries.count == 2 + 7)
    }

    @Test("Without records a section says its information is unavailable")
    func emptySections() async throws {
        let store = ShareFixtures.store()
        try await store.saveOwnerProfile(HKOwnerProfile(givenName: "Ana María", familyName: "Ruiz"))
        let bundle = try ShareFixtures.parse(try await ShareFileBuilder(store: store).summaryFile(now: ShareFixtures.day))
        let sections = try #require(bundle["entry"]?.arrayValue?.first?["resource"]?["section"]?.arrayValue)
        #expect(sections.count == 6)
        for section in sections {
            #expect(section["entry"] == nil)
            #expect(section["emptyReason"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "unavailable")
        }
    }

    @Test("The Patient is the owner's profile when one is set, with the id the records refer to")
    func patientFromProfile() async throws {
        let store = ShareFixtures.store()
        try await store.saveHealthRecords(ShareFixtures.everyKind(), source: HKSource(name: "Clinic", bundleIdentifier: "org.example.clinic"))
        try await store.saveOwnerProfile(HKOwnerProfile(givenName: "Ana María", familyName: "Ruiz García",
                                                        dateOfBirth: DateComponents(year: 1980, month: 2, day: 3), biologicalSex: .female))
        let bundle = try ShareFixtures.parse(try await ShareFileBuilder(store: store).summaryFile(now: ShareFixtures.day))
        let patient = try #require(bundle["entry"]?.arrayValue?.dropFirst().first?["resource"])
        #expect(patient["resourceType"]?.stringValue == "Patient")
        #expect(patient["id"]?.stringValue == "p1")
        #expect(patient["name"]?.arrayValue?.first?["family"]?.stringValue == "Ruiz García")
        #expect(patient["name"]?.arrayValue?.first?["given"]?.arrayValue == [.string("Ana"), .string("María")])
        #expect(patient["birthDate"]?.stringValue == "1980-02-03")
        #expect(patient["gender"]?.stringValue == "female")
    }

    @Test("Without a profile, the Patient is the one the records refer to, named as they name it")
    func patientFromRecords() async throws {
        let store = ShareFixtures.store()
        try await store.saveHealthRecords(ShareFixtures.everyKind(), source: HKSource(name: "Clinic", bundleIdentifier: "org.example.clinic"))
        let bundle = try ShareFixtures.parse(try await ShareFileBuilder(store: store).summaryFile(now: ShareFixtures.day))
        let patient = try #require(bundle["entry"]?.arrayValue?.dropFirst().first?["resource"])
        #expect(patient["id"]?.stringValue == "p1")
        #expect(patient["name"]?.arrayValue?.first?["text"]?.stringValue == "Ana Ruiz")
        #expect(patient["birthDate"] == nil)
        // Every record's own reference to its Patient resolves inside the document.
        let records = try #require(bundle["entry"]?.arrayValue?.dropFirst(2))
        for entry in records {
            let reference = entry["resource"]?["subject"]?["reference"]?.stringValue ?? entry["resource"]?["patient"]?["reference"]?.stringValue
            #expect(reference == "Patient/p1")
        }
    }

    @Test("Without a profile or a named record, the cards' subject names the Patient; an empty store has nothing to share")
    func patientFromCardsAndNothing() async throws {
        let empty = ShareFixtures.store()
        await #expect(throws: ShareError.self) { _ = try await ShareFileBuilder(store: empty).summaryFile() }
        let store = ShareFixtures.store()
        try await store.saveHealthRecords([ShareFixtures.card(name: "Bo Lind")], source: HKSource(name: "Issuer", bundleIdentifier: "org.example.issuer"))
        let bundle = try ShareFixtures.parse(try await ShareFileBuilder(store: store).summaryFile(now: ShareFixtures.day))
        let patient = try #require(bundle["entry"]?.arrayValue?.dropFirst().first?["resource"])
        #expect(patient["name"]?.arrayValue?.first?["text"]?.stringValue == "Bo Lind")
        #expect(patient["birthDate"]?.stringValue == "1980-02-03")
    }

    @Test("Records by type and by UUID make one collection Bundle of the stored resources, exactly as stored")
    func recordsBundle() async throws {
        let store = ShareFixtures.store()
        let records = ShareFixtures.everyKind()
        try await store.saveHealthRecords(records, source: HKSource(name: "Clinic", bundleIdentifier: "org.example.clinic"))
        let stored = try await ShareFileBuilder(store: store).clinicalRecords(types: HKObjectType.allClinicalTypes)
        let condition = try #require(stored.first { $0.fhirResource?.identifier == "co1" })
        let files = try await ShareFileBuilder(store: store).files(for: [.records(types: ["allergyRecord", "HKClinicalTypeIdentifierLabResultRecord"]),
                                                                         .record(condition.uuid), .record(condition.uuid)])
        #expect(files.count == 1)
        let bundle = try ShareFixtures.parse(try #require(files.first))
        #expect(bundle["type"]?.stringValue == "collection")
        let entries = try #require(bundle["entry"]?.arrayValue)
        #expect(Set(entries.compactMap { $0["resource"]?["id"]?.stringValue }) == ["al1", "dstu2", "lab1", "co1"])
        #expect(entries.count == 4, "a record chosen twice is there once")
        for entry in entries {
            let id = try #require(entry["resource"]?["id"]?.stringValue)
            let original = try #require(records.first { $0.fhirResource?.identifier == id }?.fhirResource)
            #expect(entry["resource"] == (try JSONParser.parse(Array(original.data))))
            #expect(entry["fullUrl"]?.stringValue == original.sourceURL?.absoluteString)
        }
        await #expect(throws: ShareError.invalidOptions("unknown record type 'bogus': use allergyRecord, conditionRecord, immunizationRecord, "
            + "labResultRecord, medicationRecord, procedureRecord, vitalSignRecord, coverageRecord or clinicalNoteRecord")) {
            _ = try await ShareFileBuilder(store: store).files(for: [.records(types: ["bogus"])])
        }
        await #expect(throws: ShareError.self) { _ = try await ShareFileBuilder(store: store).files(for: [.records(types: ["clinicalNoteRecord"])]) }
        await #expect(throws: ShareError.self) { _ = try await ShareFileBuilder(store: store).files(for: [.record(UUID())]) }
    }

    @Test("Each card is an application/smart-health-card file holding its JWS")
    func cardFiles() async throws {
        let store = ShareFixtures.store()
        await #expect(throws: ShareError.self) { _ = try await ShareFileBuilder(store: store).files(for: [.cards]) }
        try await store.saveHealthRecords([ShareFixtures.card(jws: "a.b.c"), ShareFixtures.card(jws: "d.e.f")],
                                          source: HKSource(name: "Issuer", bundleIdentifier: "org.example.issuer"))
        let cards = try await ShareFileBuilder(store: store).cards()
        let files = try await ShareFileBuilder(store: store).files(for: [.cards, .card(cards[0].uuid)])
        #expect(files.count == 2, "a card chosen twice is one file")
        #expect(files.allSatisfy { $0.contentType == "application/smart-health-card" })
        let jws = try files.map { try #require(ShareFixtures.parse($0)["verifiableCredential"]?.arrayValue) }
        #expect(Set(jws.flatMap { $0 }) == [.string("a.b.c"), .string("d.e.f")])
        let one = try await ShareFileBuilder(store: store).files(for: [.card(cards[1].uuid)])
        #expect(one.count == 1)
        await #expect(throws: ShareError.self) { _ = try await ShareFileBuilder(store: store).files(for: [.card(UUID())]) }
    }

    @Test("Files encrypt as SHL JWEs that decrypt with the link's key to the same bytes (FHIR deflated)")
    func encryption() throws {
        let key = SHLink.newKey()
        let files = [ShareFile(contentType: SHLContentType.fhirJSON, content: Array("{\"resourceType\":\"Bundle\"}".utf8)),
                     ShareFile(contentType: SHLContentType.smartHealthCard, content: Array("{\"verifiableCredential\":[\"a.b.c\"]}".utf8))]
        let encrypted = try ShareLinks.encrypt(files, key: key)
        for (file, jwe) in zip(files, encrypted) {
            #expect(jwe.contentType == file.contentType)
            let decrypted = try SHLFile.decrypt(jwe.jwe, key: key)
            #expect(decrypted.content == file.content)
            #expect(decrypted.contentType == file.contentType)
        }
        #expect(throws: SHLinkError.self) { _ = try SHLFile.decrypt(encrypted[0].jwe, key: SHLink.newKey()) }
    }
}

@Suite("HealthSharing: what a link keeps sealed in the store, and the options it refuses")
struct SealedShareLinkTests {
    @Test("The key and the choice of contents round-trip through the store's sealed row")
    func keyKeptAndReused() async throws {
        let store = ShareFixtures.store()
        let key = SHLink.newKey()
        let uuid = UUID()
        let contents: [ShareContent] = [.summary, .records(types: ["allergyRecord", "labResultRecord"]), .record(uuid), .cards, .card(uuid)]
        let sealed = SealedShareLink(key: Data(key).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                                         .replacingOccurrences(of: "=", with: ""), contents: contents.map(\.storageText), longTerm: true, direct: false,
                                     manifestURL: "http://127.0.0.1:1/shl/x")
        try await store.saveSharedLink(HKSharedLink(id: "x", state: try sealed.encoded()))
        let kept = try #require(try await store.sharedLink(id: "x"))
        let read = try SealedShareLink.decode(kept.state)
        #expect(read == sealed)
        #expect(read.keyBytes == key)
        #expect(read.contents.compactMap(ShareContent.init(storageText:)) == contents)
        #expect(ShareContent(storageText: "record:not-a-uuid") == nil)
        #expect(ShareContent(storageText: "everything") == nil)
        #expect(throws: ShareError.self) { _ = try SealedShareLink.decode(Data("{".utf8)) }
    }

    @Test("Options no server hosts are refused before anything is read")
    func refusedOptions() throws {
        let now = ShareFixtures.day
        func refused(_ options: ShareOptions) -> Bool {
            do {
                try options.validate(now: now)
                return false
            } catch {
                return true
            }
        }
        #expect(!refused(ShareOptions(contents: [.summary])))
        #expect(refused(ShareOptions(contents: [])))
        #expect(refused(ShareOptions(contents: [.cards], passcode: "1", direct: true)))
        #expect(refused(ShareOptions(contents: [.cards], longTerm: true, direct: true)))
        #expect(refused(ShareOptions(contents: [.summary], attempts: 3)))
        #expect(refused(ShareOptions(contents: [.summary], passcode: "1", attempts: 0)))
        #expect(refused(ShareOptions(contents: [.summary], passcode: "")))
        #expect(refused(ShareOptions(contents: [.summary], label: String(repeating: "x", count: 81))))
        #expect(!refused(ShareOptions(contents: [.summary], label: String(repeating: "é", count: 80))))
        #expect(refused(ShareOptions(contents: [.summary], expiry: .at(now.addingTimeInterval(-1)))))
        #expect(!refused(ShareOptions(contents: [.summary], expiry: .never)))
        #expect(ShareExpiry.after(.seconds(3_600)).date(from: now) == now.addingTimeInterval(3_600))
        #expect(ShareExpiry.never.date(from: now) == nil)
    }
}
