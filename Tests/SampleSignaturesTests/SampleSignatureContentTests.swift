import Foundation
import SampleSignatures
import SwiftASN1
import Testing

/// The signed content's DER: field order and forms other implementations rely on.
struct SampleSignatureContentTests {
    @Test func encodesTheDocumentedStructure() throws {
        let content = SampleSignatureContent(typeIdentifier: "HKQuantityTypeIdentifierBodyMass", value: 72.5, unit: "kg",
                                             startDate: Date(timeIntervalSince1970: 1_795_680_000.25),
                                             endDate: Date(timeIntervalSince1970: 1_795_680_000.1), syncIdentifier: "s")
        let der = try content.derEncoded()
        let root = try DER.parse(der)
        guard case .constructed(let nodes) = root.content else {
            Issue.record("not a SEQUENCE")
            return
        }
        let fields = Array(nodes)
        #expect(fields.map(\.identifier) == [.integer, .utf8String, .octetString, .utf8String, .generalizedTime, .generalizedTime,
                                             ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)])
        func bytes(_ node: ASN1Node) -> [UInt8] {
            if case .primitive(let bytes) = node.content { return Array(bytes) }
            return []
        }
        #expect(bytes(fields[2]) == [0x40, 0x52, 0x20, 0, 0, 0, 0, 0])  // 72.5 as big-endian binary64
        #expect(String(decoding: bytes(fields[4]), as: UTF8.self) == "20261126080000.25Z")
        #expect(String(decoding: bytes(fields[5]), as: UTF8.self) == "20261126080000.1Z")
        #expect(try SampleSignatureContent(derEncoded: der) == content)
    }

    @Test(arguments: [
        ("19700101000000Z", Int64(0)),
        ("19691231235959.999Z", Int64(-1)),
        ("20000229120000.5Z", Int64(951_825_600_500)),
        ("00010101000000Z", Int64(-62_135_596_800_000)),
        ("99991231235959.999Z", Int64(253_402_300_799_999)),
    ])
    func timesRoundTrip(text: String, milliseconds: Int64) throws {
        var content = SampleSignatureContent(typeIdentifier: "t", value: 0, unit: "", startDate: Date(), endDate: Date())
        content.startMilliseconds = milliseconds
        content.endMilliseconds = milliseconds
        let der = try content.derEncoded()
        #expect(String(decoding: der, as: UTF8.self).contains(text))
        #expect(try SampleSignatureContent(derEncoded: der).startMilliseconds == milliseconds)
    }

    @Test(arguments: ["20261120040000.250Z", "20261120040000.1234Z", "20261120040000+0100", "20261320040000Z", "20260230040000Z",
                      "20261120240000Z", "2026112004000Z", "20261120040060Z", "20261120040000.Z", "2026-1120040000Z"])
    func nonDERTimesAreRefused(text: String) throws {
        let content = SampleSignatureContent(typeIdentifier: "t", value: 0, unit: "", startDate: Date(timeIntervalSince1970: 0),
                                             endDate: Date(timeIntervalSince1970: 0))
        let der = try content.derEncoded()
        // Swap the start time for `text` (re-encoding the SEQUENCE's length).
        let original = Array("19700101000000Z".utf8)
        var fields = Array(der.dropFirst(2))
        guard let index = (0...(fields.count - original.count)).first(where: { Array(fields[$0..<($0 + original.count)]) == original }) else {
            Issue.record("start time not found")
            return
        }
        fields.replaceSubrange((index - 1)..<(index + original.count), with: [UInt8(text.utf8.count)] + Array(text.utf8))
        let changed = [0x30, UInt8(fields.count)] + fields
        #expect(throws: SampleSignatureError.self) { try SampleSignatureContent(derEncoded: changed) }
    }

    @Test func comparesValuesToARelativeBillionthAndDatesToTheMillisecond() {
        let base = SampleSignatureContent(typeIdentifier: "t", value: 5.4, unit: "mmol/L", startDate: Date(timeIntervalSince1970: 10),
                                          endDate: Date(timeIntervalSince1970: 20))
        var close = base
        close.value = 5.4 * (1 + 1e-12)
        #expect(base.firstDifference(from: close) == nil)
        close = SampleSignatureContent(typeIdentifier: "t", value: 5.4, unit: "mmol/L", startDate: Date(timeIntervalSince1970: 10.0004),
                                       endDate: Date(timeIntervalSince1970: 20))
        #expect(base.firstDifference(from: close) == nil)
        close.unit = "mg/dL"
        #expect(base.firstDifference(from: close) == .unit)
        // A signed content without a sync identifier accepts a sample that has one.
        var withSync = base
        withSync.syncIdentifier = "x"
        #expect(base.firstDifference(from: withSync) == nil)
        #expect(withSync.firstDifference(from: base) == .syncIdentifier)
    }
}
