import ExactJSON
import Foundation

/// What SMART App Launch discovery says about a FHIR server: its authorization, token and
/// registration endpoints, from `/.well-known/smart-configuration` or, for older servers, the
/// CapabilityStatement's `oauth-uris` extension.
public struct SMARTEndpoints: Sendable, Hashable, Codable {
    /// `authorization_endpoint`.
    public var authorization: String
    /// `token_endpoint`.
    public var token: String
    /// `registration_endpoint` (RFC 7591), if offered.
    public var registration: String?
    /// `code_challenge_methods_supported` (empty when not said).
    public var codeChallengeMethods: [String]

    /// Creates endpoints.
    public init(authorization: String, token: String, registration: String?, codeChallengeMethods: [String] = []) {
        self.authorization = authorization
        self.token = token
        self.registration = registration
        self.codeChallengeMethods = codeChallengeMethods
    }

    /// Reads a `.well-known/smart-configuration` document.
    public static func parse(smartConfiguration bytes: [UInt8]) throws(RecordsSyncError) -> SMARTEndpoints {
        guard let object = (try? JSONParser.parse(bytes))?.objectValue else {
            throw .discovery("the SMART configuration is not a JSON object")
        }
        guard let authorization = object["authorization_endpoint"]?.stringValue, let token = object["token_endpoint"]?.stringValue else {
            throw .discovery("the SMART configuration has no authorization_endpoint or token_endpoint")
        }
        let methods = object["code_challenge_methods_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return SMARTEndpoints(authorization: authorization, token: token, registration: object["registration_endpoint"]?.stringValue,
                              codeChallengeMethods: methods)
    }

    /// Reads the `oauth-uris` extension of a CapabilityStatement (`rest[].security.extension`).
    public static func parse(capabilityStatement bytes: [UInt8]) throws(RecordsSyncError) -> SMARTEndpoints {
        guard let object = (try? JSONParser.parse(bytes))?.objectValue, object["resourceType"]?.stringValue == "CapabilityStatement" else {
            throw .discovery("/metadata is not a CapabilityStatement")
        }
        var uris: [String: String] = [:]
        for rest in object["rest"]?.arrayValue ?? [] {
            for outer in rest["security"]?["extension"]?.arrayValue ?? []
            where outer["url"]?.stringValue == "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris" {
                for inner in outer["extension"]?.arrayValue ?? [] {
                    if let name = inner["url"]?.stringValue, let value = inner["valueUri"]?.stringValue { uris[name] = value }
                }
            }
        }
        guard let authorization = uris["authorize"], let token = uris["token"] else {
            throw .discovery("the CapabilityStatement names no authorize and token endpoints")
        }
        return SMARTEndpoints(authorization: authorization, token: token, registration: uris["register"])
    }

    /// Whether a CapabilityStatement offers the Patient operation `health-cards-issue`
    /// (SMART Health Cards and Links IG, `$health-cards-issue`).
    public static func offersHealthCardsIssue(capabilityStatement bytes: [UInt8]) -> Bool {
        guard let object = (try? JSONParser.parse(bytes))?.objectValue else { return false }
        for rest in object["rest"]?.arrayValue ?? [] {
            for resource in rest["resource"]?.arrayValue ?? [] where resource["type"]?.stringValue == "Patient" {
                if resource["operation"]?.arrayValue?.contains(where: { $0["name"]?.stringValue == "health-cards-issue" }) ?? false { return true }
            }
        }
        return false
    }
}
