import ExactJSON
import Testing
@testable import FhirBlocks
import TestSupport

/// Security labels in variant spellings and in systems the server does not understand (issue
/// 33): the three understood systems are read whatever their case, `http`/`https` scheme or
/// trailing `/`; a label in any other system hides the resource from every grantee, however
/// much it may see, and only the patient's own scope (every sensitivity) still sees it.
@Suite struct SecurityLabelSpellingTests {
    static func labels(_ codings: [(system: String?, code: String)]) -> SecurityLabels {
        let values: [JSONValue] = codings.map { coding in
            var object = JSONObject()
            if let system = coding.system { object.append("system", .string(system)) }
            object.append("code", .string(coding.code))
            return .object(object)
        }
        return SecurityLabels(resource: .object(JSONObject(members: [
            JSONMember(key: "resourceType", value: .string("Observation")),
            JSONMember(key: "meta", value: .object(JSONObject(members: [JSONMember(key: "security", value: .array(values))]))),
        ])))
    }

    /// A grantee that may see everything a grant can name: ceiling V, every known sensitivity.
    static let widestGrantee = PermissionScope(permissionType: .patient, resource: .all, access: .all, confidentialityCeiling: .V,
                                               sensitivities: SensitivitySet(Set(SensitivityCode.known)))
    /// A grantee with the default ceiling N and no sensitivity.
    static let normalGrantee = PermissionScope(permissionType: .patient, resource: .all, access: .all, confidentialityCeiling: .N, sensitivities: .none)

    static func decision(_ grant: PermissionScope, _ labels: SecurityLabels) -> AccessDecision {
        AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .read, labels: labels)
    }

    /// `spelling` with each ASCII letter's case flipped at random, its scheme (for a URL) made
    /// `http` or `https` at random, and up to three trailing `/`.
    static func variant(of spelling: String, _ random: inout SplitMix64) -> String {
        var text = spelling
        if text.hasPrefix("http://") { text = (random.chance(0.5) ? "https://" : "http://") + text.dropFirst(7) }
        text = String(text.map { character in
            guard character.isASCII, character.isLetter, random.chance(0.5) else { return character }
            return Character(character.isUppercase ? character.lowercased() : character.uppercased())
        })
        return text + String(repeating: "/", count: random.int(0...3))
    }

    @Test("the understood systems are read in every variant spelling")
    func variantSpellingsAreRecognised() {
        var random = SplitMix64(seed: 33)
        for _ in 0..<2_000 {
            for system in SecurityLabelSystem.allCases {
                let spelling = Self.variant(of: system.spellings.sorted()[random.below(system.spellings.count)], &random)
                #expect(SecurityLabelSystem(system: spelling) == system, "\(spelling)")
                switch system {
                case .confidentiality:
                    let level = ConfidentialityLevel.allCases[random.below(ConfidentialityLevel.allCases.count)]
                    let labels = Self.labels([(spelling, level.rawValue)])
                    #expect(labels.confidentiality == level && !labels.hasUnrecognisedLabel, "\(spelling)")
                    // An R label in any spelling is above an N ceiling.
                    #expect((Self.decision(Self.normalGrantee, labels) == .permit) == (level <= .N), "\(spelling) \(level)")
                case .actCode:
                    let code = SensitivityCode.known[random.below(SensitivityCode.known.count)]
                    let labels = Self.labels([(spelling, code.rawValue)])
                    #expect(labels.sensitivities == [code], "\(spelling)")
                    #expect(Self.decision(Self.normalGrantee, labels) == .denySensitivity)
                    #expect(Self.decision(Self.widestGrantee, labels) == .permit)
                case .observationValue:
                    let codes = SecurityLabelSystem.integrityCodes.sorted()
                    let labels = Self.labels([(spelling, codes[random.below(codes.count)])])
                    #expect(labels == SecurityLabels(confidentiality: nil, sensitivities: []), "\(spelling)")
                    #expect(Self.decision(Self.normalGrantee, labels) == .permit)
                }
            }
        }
    }

    /// Systems that are not one of the three: near misses of their spellings, other HL7 label
    /// systems the server does not enforce, and random text.
    static func unknownSystem(_ random: inout SplitMix64) -> String {
        let known = SecurityLabelSystem.allCases.flatMap { $0.spellings }.sorted()
        let base = known[random.below(known.count)]
        switch random.below(6) {
        case 0:   // one character changed, inserted or removed inside the spelling
            var characters = Array(base)
            let index = random.int(8...(characters.count - 2))
            switch random.below(3) {
            case 0: characters[index] = characters[index] == "x" ? "y" : "x"
            case 1: characters.insert("x", at: index)
            default: characters.remove(at: index)
            }
            return String(characters)
        case 1: return base.replacingOccurrences(of: "://", with: "://www.")
        case 2: return " " + base
        case 3: return ["http://terminology.hl7.org/CodeSystem/v3-ActReason", "http://terminology.hl7.org/CodeSystem/v3-ObligationPolicy",
                        "http://terminology.hl7.org/CodeSystem/v3-RefrainPolicy", "urn:oid:2.16.840.1.113883.5.8",
                        "ftp://terminology.hl7.org/CodeSystem/v3-Confidentiality", "terminology.hl7.org/CodeSystem/v3-Confidentiality?x",
                        "http://example.org/labels", "urn:uuid:00000000-0000-0000-0000-000000000000"][random.below(8)]
        case 4: return base + "/" + String(random.below(100))
        default: return String((0..<random.int(1...40)).map { _ in Character(Unicode.Scalar(UInt8(random.int(33...126)))) })
        }
    }

    @Test("a label in a system the server does not understand hides the resource from every grantee but the patient")
    func unknownSystemsFailClosed() {
        var random = SplitMix64(seed: 3_300)
        var checked = 0
        for _ in 0..<5_000 {
            let system = Self.unknownSystem(&random)
            guard SecurityLabelSystem(system: system) == nil else { continue }   // a random text that names one after all
            checked += 1
            let code = ["R", "N", "HIV", "HTRT", "NORDSCLCD", "x", ""][random.below(7)]
            // Alone, or besides labels the server understands.
            var codings: [(system: String?, code: String)] = [(system, code)]
            if random.chance(0.5) { codings.insert((ConfidentialityLevel.system, "N"), at: 0) }
            let labels = Self.labels(codings)
            #expect(labels.hasUnrecognisedLabel, "\(system)")
            #expect(Self.decision(Self.widestGrantee, labels) != .permit, "\(system)")
            #expect(Self.decision(Self.normalGrantee, labels) != .permit, "\(system)")
            #expect(Self.decision(.owner, labels) == .permit, "\(system)")
        }
        #expect(checked > 4_000)
        // Other ObservationValue codes, codings without a system and entries that are not codings.
        for labels in [Self.labels([(SecurityLabelSystem.observationValueSystem, "ABNORMAL")]), Self.labels([(nil, "R")]), Self.labels([("", "N")]),
                       SecurityLabels(resource: .object(JSONObject(members: [
                           JSONMember(key: "meta", value: .object(JSONObject(members: [JSONMember(key: "security", value: .array([.string("R")]))]))),
                       ])))] {
            #expect(labels.hasUnrecognisedLabel && Self.decision(Self.widestGrantee, labels) != .permit)
            #expect(Self.decision(.owner, labels) == .permit)
        }
        // The stand-in for such a label cannot be named by any scope or grant.
        #expect(SensitivityCode(SecurityLabels.unrecognised.rawValue) == nil)
    }
}
