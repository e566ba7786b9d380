import Foundation
import SwiftASN1

/// What a device signs for one sample: the DER encoding of this structure is the CMS
/// `eContent` of the signature in `HKMetadataKeyDigitalSignature`.
///
/// ```asn1
/// SampleSignatureContent ::= SEQUENCE {
///     version         INTEGER (1),
///     type            UTF8String,              -- HealthKit identifier, e.g. "HKQuantityTypeIdentifierBloodGlucose"
///     value           OCTET STRING (SIZE (8)), -- IEEE 754 binary64, big-endian, in `unit`
///     unit            UTF8String,              -- the HKUnit unitString of `value`; "" for category samples
///     startDate       GeneralizedTime,         -- UTC ("Z"), whole milliseconds, DER form
///     endDate         GeneralizedTime,
///     syncIdentifier  [0] IMPLICIT UTF8String OPTIONAL  -- HKMetadataKeySyncIdentifier
/// }
/// ```
///
/// The value is the binary64 number itself rather than an ASN.1 REAL or decimal text: every
/// implementation produces the same eight bytes for the same `Double`, with no rounding in a
/// decimal conversion. Times are in DER's GeneralizedTime form: `YYYYMMDDHHMMSSZ`, or with a
/// fraction of one to three digits and no trailing zero (`20261120080000.25Z`); a verifier
/// compares dates at millisecond precision.
public struct SampleSignatureContent: Sendable, Hashable {
    /// The fields of the content, named in a verdict when the sample differs from what was signed.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case type, value, unit, startDate, endDate, syncIdentifier
    }

    /// The sample type's HealthKit identifier.
    public var typeIdentifier: String
    /// The value, in ``unit`` (a category sample's raw value as a number).
    public var value: Double
    /// The canonical unit string of ``value``; empty for category samples.
    public var unit: String
    /// The start, in whole milliseconds since 1970 (UTC).
    public var startMilliseconds: Int64
    /// The end, in whole milliseconds since 1970 (UTC).
    public var endMilliseconds: Int64
    /// The sample's sync identifier, when it has one and the signer included it.
    public var syncIdentifier: String?

    /// The content of a sample; dates are rounded to the millisecond.
    public init(typeIdentifier: String, value: Double, unit: String, startDate: Date, endDate: Date, syncIdentifier: String? = nil) {
        self.typeIdentifier = typeIdentifier
        self.value = value
        self.unit = unit
        self.startMilliseconds = SignatureTime.milliseconds(of: startDate)
        self.endMilliseconds = SignatureTime.milliseconds(of: endDate)
        self.syncIdentifier = syncIdentifier
    }

    /// The start date (at millisecond precision).
    public var startDate: Date { SignatureTime.date(milliseconds: startMilliseconds) }
    /// The end date (at millisecond precision).
    public var endDate: Date { SignatureTime.date(milliseconds: endMilliseconds) }

    /// The DER encoding (what is signed).
    /// - Throws: ``SampleSignatureError`` when a date lies outside the years 1–9999 or the value is not finite.
    public func derEncoded() throws(SampleSignatureError) -> [UInt8] {
        guard value.isFinite else { throw SampleSignatureError(.unencodableContent, "the value is not a finite number") }
        guard let start = SignatureTime.text(milliseconds: startMilliseconds), let end = SignatureTime.text(milliseconds: endMilliseconds) else {
            throw SampleSignatureError(.unencodableContent, "a date lies outside the years 1 to 9999")
        }
        var serializer = DER.Serializer()
        do {
            try serializer.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(1)
                try coder.serialize(ASN1UTF8String(typeIdentifier))
                try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init))))
                try coder.serialize(ASN1UTF8String(unit))
                coder.appendPrimitiveNode(identifier: .generalizedTime) { $0.append(contentsOf: start.utf8) }
                coder.appendPrimitiveNode(identifier: .generalizedTime) { $0.append(contentsOf: end.utf8) }
                try coder.serializeOptionalImplicitlyTagged(syncIdentifier.map { ASN1UTF8String($0) }, withIdentifier: Self.syncIdentifierTag)
            }
        } catch {
            throw SampleSignatureError(.unencodableContent, "the content cannot be DER-encoded")
        }
        return serializer.serializedBytes
    }

    /// Decodes the DER encoding, strictly (no trailing bytes, DER lengths, valid times).
    public init(derEncoded bytes: some Collection<UInt8>) throws(SampleSignatureError) {
        do {
            let root = try DER.parse(Array(bytes))
            self = try DER.sequence(root, identifier: .sequence) { nodes in
                let version = try Int(derEncoded: &nodes)
                guard version == 1 else { throw SampleSignatureError(.malformedContent, "content version \(version) is not 1") }
                let type = try Self.text(ASN1UTF8String(derEncoded: &nodes))
                let valueBytes = try ASN1OctetString(derEncoded: &nodes).bytes
                guard valueBytes.count == 8 else { throw SampleSignatureError(.malformedContent, "the value is not 8 bytes") }
                let bits = valueBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let value = Double(bitPattern: bits)
                guard value.isFinite else { throw SampleSignatureError(.malformedContent, "the value is not a finite number") }
                let unit = try Self.text(ASN1UTF8String(derEncoded: &nodes))
                let start = try Self.time(nodes.next())
                let end = try Self.time(nodes.next())
                var syncIdentifier: String?
                if let node = nodes.next() {
                    guard node.identifier == Self.syncIdentifierTag else {
                        throw SampleSignatureError(.malformedContent, "unexpected field after the end date")
                    }
                    syncIdentifier = try Self.text(ASN1UTF8String(derEncoded: node, withIdentifier: Self.syncIdentifierTag))
                }
                var content = SampleSignatureContent(typeIdentifier: type, value: value, unit: unit, startDate: Date(timeIntervalSince1970: 0),
                                                     endDate: Date(timeIntervalSince1970: 0), syncIdentifier: syncIdentifier)
                content.startMilliseconds = start
                content.endMilliseconds = end
                return content
            }
        } catch let error as SampleSignatureError {
            throw error
        } catch {
            throw SampleSignatureError(.malformedContent, "the signed content is not a DER SampleSignatureContent")
        }
    }

    /// The first field in which `other` (what the sample holds) differs from this signed content.
    /// Values are equal when they agree to a relative 1e-9 (a unit conversion may round).
    public func firstDifference(from other: SampleSignatureContent) -> Field? {
        if typeIdentifier != other.typeIdentifier { return .type }
        if unit != other.unit { return .unit }
        let scale = max(abs(value), abs(other.value))
        if value != other.value, abs(value - other.value) > scale * 1e-9 { return .value }
        if startMilliseconds != other.startMilliseconds { return .startDate }
        if endMilliseconds != other.endMilliseconds { return .endDate }
        if let syncIdentifier, syncIdentifier != other.syncIdentifier { return .syncIdentifier }
        return nil
    }

    static let syncIdentifierTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    /// A UTF8String's text; invalid UTF-8 is refused rather than repaired.
    private static func text(_ string: ASN1UTF8String) throws -> String {
        guard let text = String(bytes: string.bytes, encoding: .utf8) else {
            throw SampleSignatureError(.malformedContent, "a string is not valid UTF-8")
        }
        return text
    }

    private static func time(_ node: ASN1Node?) throws -> Int64 {
        guard let node, node.identifier == .generalizedTime, case .primitive(let bytes) = node.content,
              let milliseconds = SignatureTime.milliseconds(text: bytes) else {
            throw SampleSignatureError(.malformedContent, "a date is not a DER GeneralizedTime")
        }
        return milliseconds
    }
}
