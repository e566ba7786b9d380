import Foundation

/// Where a verifiable clinical record comes from (HealthKit's `HKVerifiableClinicalRecordSourceType`).
public struct HKVerifiableClinicalRecordSourceType: RawRepresentable, Hashable, Sendable, Codable {
    /// The source type's name.
    public let rawValue: String

    /// Creates a source type from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A SMART Health Card: `dataRepresentation` is the compact JWS.
    public static let smartHealthCard = HKVerifiableClinicalRecordSourceType(rawValue: "SMARTHealthCard")
    /// An EU Digital COVID Certificate. OpenHealthKit does not import these yet: a query for this
    /// source type finds nothing.
    public static let euDigitalCOVIDCertificate = HKVerifiableClinicalRecordSourceType(rawValue: "EUDigitalCOVIDCertificate")
}

/// What a verifiable clinical record attests (HealthKit's `HKVerifiableClinicalRecordCredentialType`).
/// The raw values are the SMART Health Cards type URIs a query's `recordTypes` take.
public struct HKVerifiableClinicalRecordCredentialType: RawRepresentable, Hashable, Sendable, Codable {
    /// The type URI.
    public let rawValue: String

    /// Creates a credential type from its URI.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// COVID-19 related (`https://smarthealth.cards#covid19`).
    public static let covid19 = HKVerifiableClinicalRecordCredentialType(rawValue: "https://smarthealth.cards#covid19")
    /// Immunizations (`https://smarthealth.cards#immunization`).
    public static let immunization = HKVerifiableClinicalRecordCredentialType(rawValue: "https://smarthealth.cards#immunization")
    /// Laboratory results (`https://smarthealth.cards#laboratory`).
    public static let laboratory = HKVerifiableClinicalRecordCredentialType(rawValue: "https://smarthealth.cards#laboratory")
    /// Recovery from an illness (`https://smarthealth.cards#recovery`).
    public static let recovery = HKVerifiableClinicalRecordCredentialType(rawValue: "https://smarthealth.cards#recovery")
}
