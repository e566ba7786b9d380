import CommonSupport
import Foundation

/// What a verifier needs from the leaf certificate of a JWK's `x5c` chain (rules 9-10): its
/// public key, validity period and `uniformResourceIdentifier` subject alternative names.
///
/// This is a structural reader, not a PKI validator: it does not check the certificate's
/// signature or build a path to a trust anchor (rule 10c needs a configured PKI trust framework).
public struct SHCX509Leaf: Sendable, Hashable {
    /// The uncompressed EC point `04‖x‖y` (or other SubjectPublicKeyInfo bits) of the certificate.
    public var subjectPublicKey: [UInt8]
    /// Start of the validity period.
    public var notBefore: Date
    /// End of the validity period.
    public var notAfter: Date
    /// The `uniformResourceIdentifier` subject alternative names, in order.
    public var uriSubjectAlternativeNames: [String]

    /// Reads a DER certificate. Returns nil when it is not a readable X.509 certificate.
    public init?(der: [UInt8]) {
        do throws(DERReader.Malformed) {
            var outer = DERReader(der[...])
            let certificate = try outer.read(tag: 0x30)
            var certificateReader = DERReader(certificate.content)
            let tbs = try certificateReader.read(tag: 0x30)
            var reader = DERReader(tbs.content)
            if reader.peekTag == 0xA0 { _ = try reader.read() }   // version
            _ = try reader.read(tag: 0x02)                          // serialNumber
            _ = try reader.read(tag: 0x30)                          // signature algorithm
            _ = try reader.read(tag: 0x30)                          // issuer
            let validity = try reader.read(tag: 0x30)
            var validityReader = DERReader(validity.content)
            guard let notBefore = SHCX509Leaf.time(try validityReader.read()),
                  let notAfter = SHCX509Leaf.time(try validityReader.read()) else { return nil }
            _ = try reader.read(tag: 0x30)                          // subject
            let spki = try reader.read(tag: 0x30)
            var spkiReader = DERReader(spki.content)
            _ = try spkiReader.read(tag: 0x30)                      // algorithm
            let bits = try spkiReader.read(tag: 0x03)
            guard bits.content.first == 0 else { return nil }
            var names: [String] = []
            while !reader.isAtEnd {
                let element = try reader.read()
                guard element.tag == 0xA3 else { continue }         // extensions
                var extensionsHolder = DERReader(element.content)
                let extensions = try extensionsHolder.read(tag: 0x30)
                var extensionReader = DERReader(extensions.content)
                while !extensionReader.isAtEnd {
                    let ext = try extensionReader.read(tag: 0x30)
                    var fields = DERReader(ext.content)
                    let oid = try fields.read(tag: 0x06)
                    guard Array(oid.content) == [0x55, 0x1D, 0x11] else { continue }   // subjectAltName
                    var value = try fields.read()
                    if value.tag == 0x01 { value = try fields.read() }               // critical
                    guard value.tag == 0x04 else { return nil }
                    var generalNamesHolder = DERReader(value.content)
                    let generalNames = try generalNamesHolder.read(tag: 0x30)
                    var nameReader = DERReader(generalNames.content)
                    while !nameReader.isAtEnd {
                        let name = try nameReader.read()
                        if name.tag == 0x86 {                                         // [6] IA5String URI
                            names.append(String(decoding: name.content, as: UTF8.self))
                        }
                    }
                }
            }
            self.subjectPublicKey = Array(bits.content.dropFirst())
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.uriSubjectAlternativeNames = names
        } catch {
            return nil
        }
    }

    /// UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`).
    private static func time(_ element: DERReader.Element) -> Date? {
        let text = Array(element.content)
        let digits: [Int]
        var year: Int
        switch element.tag {
        case 0x17:
            guard text.count == 13, text[12] == UInt8(ascii: "Z") else { return nil }
            guard let parsed = decimalDigits(text[0..<12]) else { return nil }
            digits = parsed
            let yy = digits[0] * 10 + digits[1]
            year = yy >= 50 ? 1900 + yy : 2000 + yy
        case 0x18:
            guard text.count == 15, text[14] == UInt8(ascii: "Z") else { return nil }
            guard let parsed = decimalDigits(text[0..<14]) else { return nil }
            digits = Array(parsed.dropFirst(2))
            year = parsed[0] * 1000 + parsed[1] * 100 + parsed[2] * 10 + parsed[3]
        default:
            return nil
        }
        func pair(_ index: Int) -> Int { digits[index] * 10 + digits[index + 1] }
        let month = pair(2), day = pair(4), hour = pair(6), minute = pair(8), second = pair(10)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func decimalDigits(_ bytes: ArraySlice<UInt8>) -> [Int]? {
        var digits: [Int] = []
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            digits.append(Int(byte - UInt8(ascii: "0")))
        }
        return digits
    }
}
