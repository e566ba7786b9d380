import ExactJSON
import Testing
@testable import FhirBlocks
import TestSupport

@Suite struct ScopeAndLabelTests {
    static func held(_ resource: ResourceScope = .type("Patient"), _ access: AccessRights = .v1Read, _ conf: ConfidentialityLevel = .V,
                     _ sens: [String] = ["ETH", "SOC"]) -> PermissionScope {
        PermissionScope(permissionType: .patient, resource: resource, access: access, confidentialityCeiling: conf,
                        sensitivities: SensitivitySet(Set(sens.compactMap(SensitivityCode.init))))
    }

    @Test func parsesV1AndV2() {
        #expect(ResourceAccessScope("patient/Observation.read")?.access == .v1Read)
        #expect(ResourceAccessScope("patient/Observation.rs")?.access == .v1Read)
        #expect(ResourceAccessScope("user/*.cruds")?.access == .all)
        #expect(ResourceAccessScope("patient/Observation.write")?.description == "patient/Observation.write")
        #expect(ResourceAccessScope("system/Patient.*")?.access == .all)
        #expect(ResourceAccessScope("patient/Observation.rs?category=laboratory")?.parameters == "category=laboratory")
        for bad in ["patient/Observation.dus", "patient/Observation.rr", "patient/Observation.", "doctor/Observation.rs",
                    "patient/observation.rs", "patient/Observation.read?x=1", "patient/Observation.rs?", "patient.rs"] {
            #expect(ResourceAccessScope(bad) == nil, "\(bad)")
        }
        #expect(SmartScope("conf/V") == .confidentiality(.V))
        #expect(SmartScope("conf/X") == nil)
        #expect(SmartScope("sens/ETH") == .sensitivity(SensitivityCode("ETH") ?? SensitivityCode.known[0]))
        #expect(SmartScope("openid") == .other("openid"))
        #expect(AccessRights(scopeSuffix: "cruds")?.v1Text == "*")
        #expect(AccessRights.v1Write.v2Text == "cud")
    }

    @Test func legacyScopeIntersectsFully() {
        let granted = ScopeRequest("patient/Patient.read sens/ETH sens/SOC conf/V").grant(held: [Self.held()])
        #expect(granted.text == "patient/Patient.read conf/V sens/ETH sens/SOC")
        #expect(granted.grants == [Self.held()])
        #expect(granted.dropped.isEmpty)
    }

    @Test func scopeEscalationIsNotGranted() {
        let granted = ScopeRequest("patient/Patient.write patient/Observation.read conf/V").grant(held: [Self.held()])
        #expect(granted.isEmpty)
        #expect(granted.dropped == ["patient/Patient.write", "patient/Observation.read"])
        #expect(ScopeRequest("user/Patient.read").grant(held: [Self.held()]).isEmpty)
    }

    @Test func grantedIsRequestedIntersectHeld() {
        let granted = ScopeRequest("patient/*.cruds conf/V sens/ETH sens/HIV openid").grant(held: [Self.held(.type("Observation"), .v1Read, .R, ["ETH"])])
        #expect(granted.text == "patient/Observation.rs conf/R sens/ETH")
        #expect(granted.dropped.contains("openid") && granted.dropped.contains("sens/HIV"))
        // Without conf/, the ceiling is the policy default (N), and no sensitive category.
        let plain = ScopeRequest("patient/Patient.read").grant(held: [Self.held()])
        #expect(plain.grants.first?.confidentialityCeiling == .N && plain.grants.first?.sensitivities == SensitivitySet.none)
        #expect(plain.text == "patient/Patient.read")
        // A granular scope is granted with its query as the grant's filter, never widened; one
        // on `*` or with an unreadable query is dropped.
        let granular = ScopeRequest("patient/Observation.rs?category=laboratory").grant(held: [Self.held(.all)])
        #expect(granular.text == "patient/Observation.rs?category=laboratory" && granular.dropped.isEmpty)
        #expect(granular.grants.first?.filter == ScopeFilter("category=laboratory"))
        #expect(granular.grants.first.map { $0.isSubset(of: Self.held(.all)) && !$0.unfiltered.isSubset(of: $0) } == true)
        for dropped in ["patient/*.rs?category=laboratory", "patient/Observation.rs?category=", "patient/Observation.rs?code:text=x",
                        "patient/Observation.rs?=x"] {
            #expect(ScopeRequest(dropped).grant(held: [Self.held(.all)]).dropped == [dropped], "\(dropped)")
        }
        // A partial v1 intersection is written in v2.
        let partial = ScopeRequest("patient/Patient.read").grant(held: [Self.held(.type("Patient"), .read)])
        #expect(partial.text == "patient/Patient.r")
    }

    @Test func randomIntersectionsAreSubsetsOfBoth() {
        var random = SplitMix64(seed: 9)
        let tokens = ["patient/*.rs", "patient/Patient.read", "patient/Observation.cruds", "patient/Observation.write", "user/*.r",
                      "conf/L", "conf/R", "conf/V", "sens/ETH", "sens/HIV", "openid", "btg", "patient/X.q"]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0...6, using: &random)).map { _ in tokens.randomElement(using: &random) ?? "" }.joined(separator: " ")
            let held = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                Self.held([.all, .type("Patient"), .type("Observation")].randomElement(using: &random) ?? .all,
                          [.v1Read, .v1Write, .all, .read].randomElement(using: &random) ?? .read,
                          ConfidentialityLevel.allCases.randomElement(using: &random) ?? .N,
                          [[], ["ETH"], ["ETH", "HIV"]].randomElement(using: &random) ?? [])
            }
            let request = ScopeRequest(text)
            let granted = request.grant(held: held)
            for grant in granted.grants {
                #expect(held.contains { grant.isSubset(of: $0) })
                #expect(grant.confidentialityCeiling <= request.requestedCeiling())
                #expect(grant.sensitivities.isSubset(of: request.requestedSensitivities))
            }
            // The granted text parses back to the same resource scopes.
            #expect(ScopeRequest(granted.text).malformed.isEmpty)
        }
    }

    static func resource(_ type: String, security: [(String, String)]) -> JSONValue {
        let codings: [JSONValue] = security.map { .object(JSONObject(members: [JSONMember(key: "system", value: .string($0.0)),
                                                                               JSONMember(key: "code", value: .string($0.1))])) }
        return .object(JSONObject(members: [
            JSONMember(key: "resourceType", value: .string(type)),
            JSONMember(key: "meta", value: .object(JSONObject(members: [JSONMember(key: "security", value: .array(codings))]))),
        ]))
    }

    @Test func confidentialityCeilingFilters() {
        let grant = Self.held(.all, .v1Read, .R, ["ETH"])
        let v = SecurityLabels(resource: Self.resource("Observation", security: [(ConfidentialityLevel.system, "V")]))
        #expect(v.confidentiality == .V)
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .read, labels: v) == .denyConfidentiality)
        let r = SecurityLabels(resource: Self.resource("Observation", security: [("http://hl7.org/fhir/v3/Confidentiality", "R")]))
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .read, labels: r) == .permit)
        let unknown = SecurityLabels(resource: Self.resource("Observation", security: [(ConfidentialityLevel.system, "Q")]))
        #expect(unknown.confidentiality == .V)
        // Unlabelled data is N: visible under R, hidden under L.
        let none = SecurityLabels(resource: .object(JSONObject()))
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .read, labels: none) == .permit)
        #expect(AccessDecision.evaluate(grants: [Self.held(.all, .v1Read, .L)], resourceType: "Observation", interaction: .read,
                                        labels: none) == .denyConfidentiality)
    }

    @Test("labels in the OID form of both systems are read; a label without a system fails closed")
    func labelSpellingsFailClosed() {
        let grant = Self.held(.all, .v1Read, .N, [])
        let oidR = SecurityLabels(resource: Self.resource("Observation", security: [("urn:oid:2.16.840.1.113883.5.25", "R")]))
        #expect(oidR.confidentiality == .R)
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .read, labels: oidR) == .denyConfidentiality)
        let oidHIV = SecurityLabels(resource: Self.resource("Observation", security: [("urn:oid:2.16.840.1.113883.5.4", "HIV")]))
        #expect(oidHIV.sensitivities.map(\.description) == ["HIV"])
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .read, labels: oidHIV) != .permit)
        // No system: whose code "R" is cannot be told, so the most restrictive reading, even for a V ceiling with every sensitivity.
        let bare = JSONValue.object(JSONObject(members: [
            JSONMember(key: "resourceType", value: .string("Observation")),
            JSONMember(key: "meta", value: .object(JSONObject(members: [JSONMember(key: "security", value: .array([
                .object(JSONObject(members: [JSONMember(key: "code", value: .string("R"))])),
            ]))]))),
        ]))
        let labels = SecurityLabels(resource: bare)
        #expect(labels.confidentiality == .V)
        let everything = Self.held(.all, .v1Read, .V, SensitivityCode.known.map(\.description))
        #expect(AccessDecision.evaluate(grants: [everything], resourceType: "Observation", interaction: .read, labels: labels) != .permit)
        // ObservationValue's integrity codes describe the data and restrict nobody.
        let other = SecurityLabels(resource: Self.resource("Observation", security: [("http://terminology.hl7.org/CodeSystem/v3-ObservationValue",
                                                                                      "SUBSETTED")]))
        #expect(other.confidentiality == nil && other.sensitivities.isEmpty)
    }

    @Test func sensitivitySetFilters() {
        let grant = Self.held(.all, .v1Read, .V, ["ETH"])
        let eth = SecurityLabels(resource: Self.resource("Condition", security: [(SensitivityCode.system, "ETH")]))
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Condition", interaction: .read, labels: eth) == .permit)
        let hiv = SecurityLabels(resource: Self.resource("Condition", security: [(SensitivityCode.system, "ETH"), (SensitivityCode.system, "HIV")]))
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Condition", interaction: .read, labels: hiv) == .denySensitivity)
        let garbage = SecurityLabels(resource: Self.resource("Condition", security: [(SensitivityCode.system, "not a code")]))
        #expect(AccessDecision.evaluate(grants: [Self.held(.all, .v1Read, .V, SensitivityCode.known.map(\.rawValue))], resourceType: "Condition",
                                        interaction: .read, labels: garbage) == .denySensitivity)
        // A system the server does not enforce (an obligation policy) hides the resource from
        // every grantee, one with every sensitivity included.
        let other = SecurityLabels(resource: Self.resource("Condition", security: [("http://terminology.hl7.org/CodeSystem/v3-ObligationPolicy", "NORDSCLCD")]))
        #expect(other.hasUnrecognisedLabel)
        #expect(AccessDecision.evaluate(grants: [Self.held(.all, .v1Read, .V, SensitivityCode.known.map(\.rawValue))], resourceType: "Condition",
                                        interaction: .read, labels: other) == .denySensitivity)
    }

    @Test func scopeAndInteractionFilter() {
        let grant = Self.held(.type("Observation"), .v1Read, .V, [])
        let labels = SecurityLabels(confidentiality: nil, sensitivities: [])
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Patient", interaction: .read, labels: labels) == .denyNoScope)
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .update, labels: labels) == .denyNoScope)
        #expect(AccessDecision.evaluate(grants: [grant], context: .user, resourceType: "Observation", interaction: .read, labels: labels) == .denyNoScope)
        #expect(AccessDecision.evaluate(grants: [grant], resourceType: "Observation", interaction: .search, labels: labels).isPermitted)
    }
}
