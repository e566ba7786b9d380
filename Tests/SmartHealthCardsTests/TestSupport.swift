import CommonSupport
import Crypto
import ExactJSON
import Foundation
@testable import SmartHealthCards

/// One step into a JSON value: a member name or an array index.
enum JSONStep: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case key(String)
    case index(Int)
    init(stringLiteral value: String) { self = .key(value) }
    init(integerLiteral value: Int) { self = .index(value) }
}

extension JSONValue {
    /// The value with the element at `path` replaced by `transform(old)` (nil removes it).
    func updating(_ path: [JSONStep], _ transform: (JSONValue?) -> JSONValue?) -> JSONValue {
        guard let step = path.first else { return transform(self) ?? .null }
        let rest = Array(path.dropFirst())
        switch (step, self) {
        case (.key(let key), .object(var object)):
            if let index = object.members.firstIndex(where: { $0.key == key }) {
                if rest.isEmpty {
                    if let value = transform(object.members[index].value) { object.members[index].value = value } else { object.members.remove(at: index) }
                } else {
                    object.members[index].value = object.members[index].value.updating(rest, transform)
                }
            } else if rest.isEmpty, let value = transform(nil) {
                object.members.append(.init(key, value))
            }
            return .object(object)
        case (.index(let index), .array(var elements)) where elements.indices.contains(index):
            if rest.isEmpty {
                if let value = transform(elements[index]) { elements[index] = value } else { elements.remove(at: index) }
            } else {
                elements[index] = elements[index].updating(rest, transform)
            }
            return .array(elements)
        default:
            return self
        }
    }

    func setting(_ path: [JSONStep], _ value: JSONValue?) -> JSONValue {
        updating(path) { _ in value }
    }

    /// The JSON text as the library writes it (FHIRCore's writer), compact or pretty.
    func serialized(pretty: Bool = false) -> [UInt8] {
        JSONWriter.serialize(self, style: pretty ? .pretty : .compact)
    }

    /// The compact JSON text as a string.
    func jsonString() -> String {
        JSONWriter.string(self)
    }

    static func json(_ text: String) -> JSONValue {
        (try? SHCLimits.default.parseJSON(Array(text.utf8))) ?? .null
    }
}

/// Cards for tests: a minimal immunization bundle signed by a fresh key, with hooks to break
/// every layer (header, compression, payload, signature, published key, CRL).
enum TestCards {
    static let issuer = "https://issuer.example.org/shc"
    /// 2026-01-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let nbf = 1_767_139_200.25   // a day earlier, fractional

    static let bundle = JSONValue.json("""
        {"resourceType":"Bundle","type":"collection","entry":[\
        {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Example","given":["Test"]}],"birthDate":"1970-01-01"}},\
        {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","meta":{"security":[{"system":"https://smarthealth.cards/ial","code":"IAL1.2"}]},\
        "status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"208"}]},\
        "patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-05-01","performer":[{"actor":{"display":"Example Clinic"}}],"lotNumber":"L1"}},\
        {"fullUrl":"resource:2","resource":{"resourceType":"Observation","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"94558-4"}]},\
        "subject":{"reference":"resource:0"},"effectiveDateTime":"2021-06-01T10:00:00Z","valueCodeableConcept":{"coding":[{"system":"http://snomed.info/sct",\
        "code":"260385009"}]}}}]}
        """)

    static func payload(rid: String? = "AbCdEfGhIjK") -> JSONValue {
        var vc: [JSONMember] = [
            .init("type", .array([.string(SHCCredentialType.healthCard)])),
            .init("credentialSubject", .object(members: [.init("fhirVersion", .string("4.0.1")), .init("fhirBundle", bundle)])),
        ]
        if let rid { vc.append(.init("rid", .string(rid))) }
        return .object(members: [.init("iss", .string(issuer)), .init("nbf", .number(double: nbf)), .init("vc", .object(members: vc))])
    }

    static func header(kid: String) -> JSONValue {
        .object(members: [.init("zip", .string("DEF")), .init("alg", .string("ES256")), .init("kid", .string(kid))])
    }

    enum Compression: Sendable {
        case raw, zlib, gzip, none
        case bytes([UInt8])
    }

    static func compress(_ payload: [UInt8], _ compression: Compression) -> [UInt8] {
        let raw = RawDeflate.deflate(payload)
        switch compression {
        case .raw: return raw
        case .none: return payload
        case .zlib:
            let adler = adler32(payload)
            return [0x78, 0xDA] + raw + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        case .gzip:
            let crc = crc32(payload)
            let size = UInt32(truncatingIfNeeded: payload.count)
            return [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x02, 0x03] + raw
                + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
                + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
        case .bytes(let bytes): return bytes
        }
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A compact JWS from raw header JSON and compressed payload, signed by `key` (r‖s) unless
    /// `signature` transforms the 64 signature bytes.
    static func sign(key: SHCIssuerKey, header: [UInt8], compressed: [UInt8],
                     signature transform: (([UInt8], Data) -> [UInt8])? = nil) throws -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(compressed)
        let signature = try key.privateKey.signature(for: Array(input.utf8))
        let bytes = transform?(Array(signature.rawRepresentation), signature.derRepresentation) ?? Array(signature.rawRepresentation)
        return input + "." + Base64URL.encode(bytes)
    }

    /// The public JWK JSON of a key.
    static func jwk(_ key: SHCIssuerKey) -> JSONValue { key.publicJWK.json }

    /// The RFC 7638 kid of a JWK JSON (for keys whose members were changed).
    static func thumbprint(_ jwk: JSONValue) -> String {
        SHCJWK.thumbprint(kty: jwk["kty"]?.stringValue ?? "", crv: jwk["crv"]?.stringValue ?? "",
                          x: jwk["x"]?.stringValue ?? "", y: jwk["y"]?.stringValue ?? "")
    }
}

/// A resolver that always fails, to test resolver errors.
struct FailingResolver: IssuerKeyResolver {
    func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        throw .unreadable(issuer: issuer, resource: "test", reason: "unreachable")
    }

    func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        throw .unreadable(issuer: issuer, resource: "test", reason: "unreachable")
    }
}

/// Answers for one issuer, with the same revocation list whatever kid is asked for (so a CRL
/// whose own kid is wrong can be served, as a misconfigured issuer would).
struct FixedResolver: IssuerKeyResolver {
    var issuer: String
    var keySet: SHCJWKSet
    var revocationList: SHCRevocationList?

    func keySet(issuer: String) async throws(SHCResolverError) -> SHCJWKSet? {
        issuer == self.issuer ? keySet : nil
    }

    func revocationList(issuer: String, kid: String) async throws(SHCResolverError) -> SHCRevocationList? {
        issuer == self.issuer ? revocationList : nil
    }
}
