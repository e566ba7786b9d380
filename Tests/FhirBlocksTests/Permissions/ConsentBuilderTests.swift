import ExactJSON
import Testing
@testable import FhirBlocks

@Suite struct ConsentBuilderTests {
    @Test func permissionBecomesAConsent() throws {
        let permission = Permission(id: PermissionID("p1"), patient: csi(number: 1), grantor: csi(number: 2), grantee: csi(number: 3),
                                    scope: ScopeAndLabelTests.held(.type("Patient"), .all, .V, ["SOC", "ETH"]),
                                    window: TimeWindow(notBefore: at(0), notAfter: at(86_400)), parent: PermissionID("p0"), grantedAt: at(0))
        let consent = ConsentBuilder.consent(for: permission, active: true)
        let text = JSONWriter.string(consent)
        let object = try #require(try JSONParser.parse(text).objectValue)
        #expect(object["resourceType"] == .string("Consent"))
        #expect(object["status"] == .string("active"))
        #expect(object["patient"]?.objectValue?["identifier"]?.objectValue?["value"] == .string(csi(number: 1).rawValue))
        #expect(object["performer"]?.arrayValue?.first?.objectValue?["type"] == .string("Device"))
        let provision = try #require(object["provision"]?.objectValue)
        #expect(provision["type"] == .string("permit"))
        #expect(provision["period"]?.objectValue?["start"] == .string(at(0).wireText))
        let actor = provision["actor"]?.arrayValue?.first?.objectValue?["reference"]?.objectValue
        #expect(actor?["identifier"]?.objectValue?["value"] == .string(csi(number: 3).rawValue))
        #expect(provision["action"]?.arrayValue?.count == 2)
        let labels = provision["securityLabel"]?.arrayValue?.compactMap { $0.objectValue?["code"]?.stringValue }
        #expect(labels == ["V", "ETH", "SOC"])
        #expect(provision["class"]?.arrayValue?.first?.objectValue?["code"] == .string("Patient"))
        #expect(text.contains(ConsentBuilder.delegatedFromExtension) && text.contains("\"valueCode\":\"cruds\""))
        let inactive = ConsentBuilder.consent(for: permission, active: false, patientReference: "Patient/123")
        #expect(inactive.objectValue?["status"] == .string("inactive"))
        #expect(inactive.objectValue?["patient"]?.objectValue?["reference"] == .string("Patient/123"))
    }

    @Test func recordsCarryTheWireShape() throws {
        let permission = Permission(id: PermissionID("p1"), patient: csi(number: 1), grantor: csi(number: 1), grantee: csi(number: 3),
                                    scope: ScopeAndLabelTests.held(), window: TimeWindow(notBefore: at(0), notAfter: at(10)), parent: nil,
                                    grantedAt: at(0), revokedAt: at(5))
        #expect(permission.record(at: at(1)).status == "active")
        let record = permission.record(at: at(5))
        #expect(record.status == "revoked" && record.grantingCsiGuid == csi(number: 1).rawValue)
        #expect(record.heartScope?.accessType == "read" && record.heartScope?.sensitivityScope == ["ETH", "SOC"])
        #expect(try PermissionScope(heartScope: record.heartScope ?? AppendixA.writePermissionRequest().permission.heartScope) == permission.scope)
    }
}
