import ExactJSON
import Foundation

/// The FHIR `$health-cards-issue` operation's parameters (rules 52-53): reading the request
/// `Parameters` and writing the response `Parameters`. The HTTP endpoint lives in the server.
public enum SHCHealthCardsIssue {
    /// The capability a SMART on FHIR server that issues cards lists in `capabilities` of
    /// `/.well-known/smart-configuration` (rule 51).
    public static let smartConfigurationCapability = "health-cards"

    /// The operation's path on a patient: `POST /Patient/:id/$health-cards-issue`.
    public static let operationName = "$health-cards-issue"

    /// A FHIR `date`, `dateTime` or `instant` as an instant: a partial date is its first instant,
    /// a time without a zone is UTC. Nil when the text is not one of those forms. (`_since` and
    /// the dates it is compared with are read this way.)
    public static func date(fhir text: String) -> Date? {
        SHCFHIRDateTime.date(from: text)
    }

    /// Why a request `Parameters` resource is invalid.
    public enum RequestError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The body is not a FHIR `Parameters` resource.
        case notParameters
        /// No `credentialType` (it is required, 1..*).
        case missingCredentialType
        /// A parameter whose value is missing or of the wrong type (its name).
        case invalidParameter(String)

        /// A one-line description.
        public var description: String {
            switch self {
            case .notParameters: "the request body is not a FHIR Parameters resource"
            case .missingCredentialType: "credentialType is required"
            case .invalidParameter(let name): "parameter \(name) has a missing or invalid value"
            }
        }
    }

    /// A parsed `$health-cards-issue` request.
    public struct Request: Sendable, Hashable {
        /// `credentialType` values (uri, 1..*); several values mean AND.
        public var credentialTypes: [String]
        /// `credentialValueSet` values (uri, 0..*), matched against `Immunization.vaccineCode` and `Observation.code`.
        public var credentialValueSets: [String]
        /// `includeIdentityClaim` values (e.g. `Patient.name`).
        public var includeIdentityClaims: [String]
        /// `_since` (dateTime), if given.
        public var since: String?

        /// `_since` as an instant: the first instant of a partial date, in UTC unless it says
        /// otherwise.
        public var sinceDate: Date? {
            since.flatMap(SHCFHIRDateTime.date(from:))
        }

        /// Reads a request `Parameters` resource.
        public init(parameters: JSONValue) throws(RequestError) {
            guard parameters["resourceType"]?.stringValue == "Parameters" else { throw .notParameters }
            var types: [String] = [], valueSets: [String] = [], claims: [String] = []
            var since: String?
            for parameter in parameters["parameter"]?.arrayValue ?? [] {
                guard let name = parameter["name"]?.stringValue else { throw .invalidParameter("parameter.name") }
                switch name {
                case "credentialType":
                    guard let value = parameter["valueUri"]?.stringValue else { throw .invalidParameter(name) }
                    types.append(value)
                case "credentialValueSet":
                    guard let value = parameter["valueUri"]?.stringValue else { throw .invalidParameter(name) }
                    valueSets.append(value)
                case "includeIdentityClaim":
                    guard let value = parameter["valueString"]?.stringValue else { throw .invalidParameter(name) }
                    claims.append(value)
                case "_since":
                    guard let value = parameter["valueDateTime"]?.stringValue, SHCFHIRDateTime.date(from: value) != nil,
                          since == nil else { throw .invalidParameter(name) }
                    since = value
                default:
                    continue   // servers may ignore what they do not support
                }
            }
            guard !types.isEmpty else { throw .missingCredentialType }
            credentialTypes = types
            credentialValueSets = valueSets
            includeIdentityClaims = claims
            self.since = since
        }

        /// The FHIR resource types asked for, with the legacy `#immunization` mapped to
        /// `Immunization` and `#laboratory` to `Observation` (as servers should).
        public var resourceTypes: [String] {
            credentialTypes.map { type in
                switch type {
                case SHCCredentialType.immunization: "Immunization"
                case SHCCredentialType.laboratory: "Observation"
                default: type
                }
            }
        }
    }

    /// One `resourceLink` of a response: which bundled resource of which card a hosted resource is.
    public struct ResourceLink: Sendable, Hashable {
        /// The zero-based index of the card among the response's credentials, when there are several.
        public var vcIndex: Int?
        /// The bundled resource, e.g. `resource:2`.
        public var bundledResource: String
        /// The server's URL of the resource.
        public var hostedResource: String

        /// Creates a link.
        public init(vcIndex: Int? = nil, bundledResource: String, hostedResource: String) {
            self.vcIndex = vcIndex
            self.bundledResource = bundledResource
            self.hostedResource = hostedResource
        }
    }

    /// The response `Parameters`: one `verifiableCredential` per card, then the resource links.
    /// With no card it is `{"resourceType":"Parameters"}` without `parameter`.
    public static func response(credentials: [String], resourceLinks: [ResourceLink] = []) -> JSONValue {
        var parameters: [JSONValue] = credentials.map {
            .object(members: [.init("name", .string("verifiableCredential")), .init("valueString", .string($0))])
        }
        for link in resourceLinks {
            var parts: [JSONValue] = []
            if let vcIndex = link.vcIndex {
                parts.append(.object(members: [.init("name", .string("vcIndex")), .init("valueInteger", .number(integer: vcIndex))]))
            }
            parts.append(.object(members: [.init("name", .string("bundledResource")), .init("valueUri", .string(link.bundledResource))]))
            parts.append(.object(members: [.init("name", .string("hostedResource")), .init("valueUri", .string(link.hostedResource))]))
            parameters.append(.object(members: [.init("name", .string("resourceLink")), .init("part", .array(parts))]))
        }
        var members: [JSONMember] = [.init("resourceType", .string("Parameters"))]
        if !parameters.isEmpty { members.append(.init("parameter", .array(parameters))) }
        return .object(members: members)
    }
}
