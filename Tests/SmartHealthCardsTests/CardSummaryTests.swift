import ExactJSON
import Foundation
@testable import SmartHealthCards
import Testing
import TestSupport

/// The summary is read straight from the verified payload's tape; these tests hold it to what
/// building it from the bundle's JSON tree gave (the implementation it replaced, kept here as
/// the oracle) over random bundles of every shape the reader meets.
@Suite("Card summary")
struct CardSummaryTests {
    @Test("Read from the tape, a random bundle's summary is the one its JSON tree gives")
    func tapeAgreesWithTree() throws {
        var random = SplitMix64(seed: 0x5C5A_11)
        var subjects = 0, dated = 0, named = 0, births = 0
        for _ in 0..<600 {
            let bundle = RandomBundle.bundle(&random)
            let claims = SHCClaims(iss: "https://issuer.example.org", nbf: 1_600_000_000, exp: random.chance(0.5) ? 1_900_000_000 : nil,
                                   types: random.chance(0.5) ? [SHCCredentialType.healthCard, SHCCredentialType.immunization] : [])
            let bytes = JSONWriter.serialize(.object(JSONObject(members: [JSONMember("fhirBundle", bundle)])))
            let tape = try JSONTape(bytes)
            let node = try #require(tape.memberValue(of: 0, named: "fhirBundle"))
            let expected = TreeSummary.summary(claims: claims, bundle: bundle, issuerName: "Example")
            #expect(SHCCardSummary(claims: claims, tape: tape, bundle: node, issuerName: "Example") == expected)
            #expect(SHCCardSummary(claims: claims, bundle: bundle, issuerName: "Example") == expected)
            if expected.subjectName != nil { subjects += 1 }
            if expected.birthDate != nil { births += 1 }
            if expected.items.contains(where: { $0.date != nil }) { dated += 1 }
            if expected.items.contains(where: { $0.code != nil && $0.name != $0.code }) { named += 1 }
        }
        // The random bundles reach every part of the summary.
        #expect(subjects > 30, "\(subjects) summaries with a subject")
        #expect(births > 30, "\(births) summaries with a birth date")
        #expect(dated > 30, "\(dated) summaries with a dated item")
        #expect(named > 30, "\(named) summaries with an item named from its code")
    }

    @Test("A verified card's summary is the one its bundle's tree gives")
    func verifiedCard() async throws {
        let key = SHCIssuerKey.generate()
        let jws = try SHCIssuer(key: key, issuer: TestCards.issuer).issue(bundle: TestCards.bundle, nbf: Date(timeIntervalSince1970: TestCards.nbf))
        let verifier = SHCVerifier(resolver: StaticKeyResolver([TestCards.issuer: SHCJWKSet(keys: [key.publicJWK])]),
                                   now: Date(timeIntervalSince1970: TestCards.nbf + 60))
        let report = await verifier.verify(jws)
        #expect(report.isValid)
        let claims = try #require(report.claims)
        let summary = try #require(report.summary)
        #expect(summary == TreeSummary.summary(claims: claims, bundle: report.bundle, issuerName: nil))
        #expect(!summary.items.isEmpty)
    }

    @Test("A tree that is not valid JSON is summarized as a card without a bundle")
    func invalidTree() {
        let patient = JSONValue.object(JSONObject(members: [JSONMember("resourceType", .string("Patient")),
                                                            JSONMember("birthDate", .string("1970-01-01")),
                                                            JSONMember("birthDate", .string("1980-01-01"))]))
        let bundle = JSONValue.object(JSONObject(members: [JSONMember("entry", .array([
            .object(JSONObject(members: [JSONMember("resource", patient)])),
        ]))]))
        let claims = SHCClaims(types: [SHCCredentialType.healthCard])
        let summary = SHCCardSummary(claims: claims, bundle: bundle)
        #expect(summary == SHCCardSummary(claims: claims, bundle: nil))
        #expect(summary.birthDate == nil && summary.recordTypes == [SHCCredentialType.healthCard])
    }
}

/// Random FHIR-ish bundles: the resources the summary reads, with members missing, of the wrong
/// kind, or written with escapes.
private enum RandomBundle {
    static func bundle(_ random: inout SplitMix64) -> JSONValue {
        if random.chance(0.03) { return .array([]) }
        var members: [JSONMember] = [JSONMember("resourceType", .string("Bundle"))]
        if random.chance(0.95) {
            if random.chance(0.05) {
                members.append(JSONMember("entry", .string("not an array")))
            } else {
                members.append(JSONMember("entry", .array((0..<random.int(0...6)).map { _ in entry(&random) })))
            }
        }
        return object(members)
    }

    static func entry(_ random: inout SplitMix64) -> JSONValue {
        if random.chance(0.05) { return .number("1") }
        var members: [JSONMember] = [JSONMember("fullUrl", .string("resource:\(random.below(9))"))]
        if random.chance(0.95) { members.append(JSONMember("resource", resource(&random))) }
        return object(members)
    }

    static func resource(_ random: inout SplitMix64) -> JSONValue {
        let type = ["Patient", "Immunization", "Observation", "DiagnosticReport", "Condition", "Patient\u{1}"][random.below(6)]
        var members: [JSONMember] = [JSONMember("resourceType", random.chance(0.03) ? .number("7") : .string(type))]
        switch type {
        case "Patient":
            if random.chance(0.9) { members.append(JSONMember("name", names(&random))) }
            if random.chance(0.8) { members.append(JSONMember("birthDate", string(["1951-01-20", "1951-01", "1951", "1951-13-01", "x", ""], &random))) }
        case "Immunization":
            if random.chance(0.9) { members.append(JSONMember("vaccineCode", concept(&random))) }
            if random.chance(0.8) { members.append(JSONMember("occurrenceDateTime", date(&random))) }
        case "Observation":
            if random.chance(0.9) { members.append(JSONMember("code", concept(&random))) }
            for name in ["effectiveDateTime", "effectiveInstant", "issued"] where random.chance(0.3) {
                members.append(JSONMember(name, date(&random)))
            }
            if random.chance(0.3) { members.append(JSONMember("effectivePeriod", object([JSONMember("start", date(&random))]))) }
        default:
            break
        }
        return object(members)
    }

    static func names(_ random: inout SplitMix64) -> JSONValue {
        if random.chance(0.05) { return .string("Ann") }
        return .array((0..<random.int(0...2)).map { _ in
            if random.chance(0.05) { return .null }
            var members: [JSONMember] = []
            if random.chance(0.3) { members.append(JSONMember("text", string(["Ann \"Nan\" Lee", "", "Zoë\nLee"], &random))) }
            if random.chance(0.7) {
                members.append(JSONMember("given", random.chance(0.1) ? .string("Ann")
                    : .array((0..<random.int(0...3)).map { _ in random.chance(0.1) ? .number("3") : string(["Ann", "B.", "Ré\t"], &random) })))
            }
            if random.chance(0.7) {
                let family: JSONValue = switch random.below(4) {
                case 0: .array([.string("Lee"), .number("1"), .string("Park")])
                case 1: .number("2")
                default: string(["Lee", "O'Brien", "\\Back"], &random)
                }
                members.append(JSONMember("family", family))
            }
            return object(members)
        })
    }

    static func concept(_ random: inout SplitMix64) -> JSONValue {
        if random.chance(0.05) { return .string("207") }
        var members: [JSONMember] = []
        if random.chance(0.9) {
            members.append(JSONMember("coding", random.chance(0.05) ? .null : .array((0..<random.int(0...3)).map { _ in
                if random.chance(0.05) { return .string("x") }
                var coding: [JSONMember] = []
                if random.chance(0.8) {
                    coding.append(JSONMember("system", string([SHCCodeNames.cvxSystem, SHCCodeNames.loincSystem, SHCCodeNames.snomedSystem], &random)))
                }
                if random.chance(0.9) { coding.append(JSONMember("code", string(["207", "208", "94558-4", "999", "94309-2"], &random))) }
                if random.chance(0.3) { coding.append(JSONMember("display", string(["Shown \"name\"", "Shown"], &random))) }
                return object(coding)
            })))
        }
        if random.chance(0.3) { members.append(JSONMember("text", string(["Text", "Tëxt\u{7}"], &random))) }
        return object(members)
    }

    static func date(_ random: inout SplitMix64) -> JSONValue {
        random.chance(0.05) ? .number("2021") : string(["2021-01-01", "2021-01-29T10:15:00Z", "2021-06-01T10:00:00.250+02:00",
                                                       "2021-06", "2021", "2021-06-01T10", "nope"], &random)
    }

    static func string(_ choices: [String], _ random: inout SplitMix64) -> JSONValue {
        .string(choices[random.below(choices.count)])
    }

    static func object(_ members: [JSONMember]) -> JSONValue {
        .object(JSONObject(members: members))
    }
}

/// The summary as it was built from the bundle's JSON tree before it was read from the tape.
private enum TreeSummary {
    static func summary(claims: SHCClaims, bundle: JSONValue?, issuerName: String?) -> SHCCardSummary {
        var summary = SHCCardSummary(claims: claims, bundle: nil, issuerName: issuerName)
        var items: [SHCCardSummary.Item] = []
        var hasImmunization = false, hasLaboratory = false
        for entry in bundle?["entry"]?.arrayValue ?? [] {
            guard let resource = entry["resource"] else { continue }
            switch resource["resourceType"]?.stringValue {
            case "Patient":
                if summary.subjectName == nil { summary.subjectName = name(of: resource) }
                if summary.birthDate == nil, let text = resource["birthDate"]?.stringValue { summary.birthDate = SHCPartialDate(fhir: text) }
            case "Immunization":
                hasImmunization = true
                let coding = coding(resource["vaccineCode"], preferring: SHCCodeNames.cvxSystem)
                let name = coding.flatMap { coding in
                    coding.system == SHCCodeNames.cvxSystem ? coding.code.flatMap { SHCCodeNames.cvx[$0] } : nil
                } ?? coding?.display ?? coding?.code ?? resource["vaccineCode"]?["text"]?.stringValue ?? "Immunization"
                let date = (resource["occurrenceDateTime"]?.stringValue).flatMap(SHCFHIRDateTime.date(from:))
                items.append(.init(kind: .immunization, name: name, system: coding?.system, code: coding?.code, date: date))
            case "Observation":
                hasLaboratory = true
                let coding = coding(resource["code"], preferring: SHCCodeNames.loincSystem)
                let tableName = coding.flatMap { coding in
                    coding.system == SHCCodeNames.loincSystem ? coding.code.flatMap { SHCCodeNames.loinc[$0] } : nil
                }
                let name = coding?.display ?? tableName ?? coding?.code.map { code in
                    coding?.system == SHCCodeNames.loincSystem ? "LOINC \(code)" : code
                } ?? resource["code"]?["text"]?.stringValue ?? "Observation"
                let dateText = resource["effectiveDateTime"]?.stringValue ?? resource["effectiveInstant"]?.stringValue
                    ?? resource["effectivePeriod"]?["start"]?.stringValue ?? resource["issued"]?.stringValue
                items.append(.init(kind: .laboratory, name: name, system: coding?.system, code: coding?.code,
                                   date: dateText.flatMap(SHCFHIRDateTime.date(from:))))
            case "DiagnosticReport":
                hasLaboratory = true
            default:
                break
            }
        }
        if hasImmunization, !summary.recordTypes.contains(SHCCredentialType.immunization) {
            summary.recordTypes.append(SHCCredentialType.immunization)
        }
        if hasLaboratory, !summary.recordTypes.contains(SHCCredentialType.laboratory) {
            summary.recordTypes.append(SHCCredentialType.laboratory)
        }
        summary.items = items
        summary.itemNames = items.map(\.name)
        summary.relevantDate = items.compactMap(\.date).max()
        return summary
    }

    private static func coding(_ concept: JSONValue?, preferring system: String) -> (system: String?, code: String?, display: String?)? {
        let codings = concept?["coding"]?.arrayValue ?? []
        let chosen = codings.first { $0["system"]?.stringValue == system } ?? codings.first
        return chosen.map { ($0["system"]?.stringValue, $0["code"]?.stringValue, $0["display"]?.stringValue) }
    }

    private static func name(of patient: JSONValue) -> String? {
        guard let name = patient["name"]?.arrayValue?.first else { return nil }
        if let text = name["text"]?.stringValue, !text.isEmpty { return text }
        var parts = name["given"]?.arrayValue?.compactMap(\.stringValue) ?? []
        switch name["family"] {
        case .string(let family)?: parts.append(family)
        case .array(let families)?: parts.append(contentsOf: families.compactMap(\.stringValue))
        default: break
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
