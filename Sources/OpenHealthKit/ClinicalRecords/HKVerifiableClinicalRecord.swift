import Foundation

/// A signed clinical record, such as a SMART Health Card (HealthKit's `HKVerifiableClinicalRecord`).
///
/// The store keeps only cards that verified when they were imported. Apps get them only through
/// ``HKVerifiableClinicalRecordQuery``, record by record, once per query; they should verify
/// `dataRepresentation` themselves. The sample's start and end dates are the relevant date.
public final class HKVerifiableClinicalRecord: HKSample, @unchecked Sendable {
    /// The record's types: the card's `vc.type` URIs, and the content types (`#immunization`,
    /// `#laboratory`) its bundle holds.
    public let recordTypes: [String]
    /// The issuer's identifier: the card's `iss` URL.
    public let issuerIdentifier: String
    /// Who the record is about.
    public let subject: HKVerifiableClinicalRecordSubject
    /// When the record was issued (`nbf`).
    public let issuedDate: Date
    /// The date that matters: when the vaccine was given or the test was done (the latest when
    /// several).
    public let relevantDate: Date
    /// When the record expires (`exp`), if ever.
    public let expirationDate: Date?
    /// A readable name for each item: vaccines by CVX, tests by LOINC, else the code's text.
    public let itemNames: [String]
    /// Where the record comes from.
    public let sourceType: HKVerifiableClinicalRecordSourceType?
    /// The record's data: for a SMART Health Card, the compact JWS as UTF-8.
    public let dataRepresentation: Data

    /// The compact JWS as UTF-8 (HealthKit's iOS 15.0 name for ``dataRepresentation``).
    public var jwsRepresentation: Data { dataRepresentation }

    /// Creates a record (OpenHealthKit API, for importers that have verified the card).
    public init(recordTypes: [String], issuerIdentifier: String, subject: HKVerifiableClinicalRecordSubject, issuedDate: Date,
                relevantDate: Date, expirationDate: Date?, itemNames: [String], sourceType: HKVerifiableClinicalRecordSourceType?,
                dataRepresentation: Data) {
        self.recordTypes = recordTypes
        self.issuerIdentifier = issuerIdentifier
        self.subject = subject
        self.issuedDate = issuedDate
        self.relevantDate = relevantDate
        self.expirationDate = expirationDate
        self.itemNames = itemNames
        self.sourceType = sourceType
        self.dataRepresentation = dataRepresentation
        super.init(sampleType: HKVerifiableClinicalRecordType(), startDate: relevantDate, endDate: relevantDate, device: nil,
                   metadata: nil)
    }

    init(details: VerifiableRecordDetails, relevantDate: Date, uuid: UUID, sourceRevision: HKSourceRevision) {
        recordTypes = details.recordTypes
        issuerIdentifier = details.issuerIdentifier
        subject = HKVerifiableClinicalRecordSubject(fullName: details.subjectName, dateOfBirthComponents: details.birthDateComponents)
        issuedDate = Date(timeIntervalSinceReferenceDate: details.issuedDate)
        self.relevantDate = relevantDate
        expirationDate = details.expirationDate.map(Date.init(timeIntervalSinceReferenceDate:))
        itemNames = details.itemNames
        sourceType = details.sourceType.map(HKVerifiableClinicalRecordSourceType.init(rawValue:))
        dataRepresentation = details.data
        super.init(sampleType: HKVerifiableClinicalRecordType(), startDate: relevantDate, endDate: relevantDate, uuid: uuid,
                   sourceRevision: sourceRevision, device: nil, metadata: nil)
    }

    public override var description: String {
        "verifiable record from \(issuerIdentifier) \(recordTypes) \(relevantDate)"
    }
}
