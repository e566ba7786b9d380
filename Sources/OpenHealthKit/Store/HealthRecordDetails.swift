import Foundation

/// A clinical record's sealed details, kept in a sealed payload's extra section: its display
/// name, the resource's type, id, source URL and FHIR version, and the resource's bytes.
///
/// Layout: a format byte, then five length-prefixed (4-byte little-endian) UTF-8 fields (display
/// name, resource type, id, source URL or empty, FHIR version), then the resource's bytes to the
/// end. Hand-written rather than JSON so the resource's bytes are stored as they are, without
/// escaping or base64 growth.
struct ClinicalRecordDetails: Equatable {
    static let format: UInt8 = 1

    var displayName: String
    var resourceType: String
    var identifier: String
    var sourceURL: String?
    var fhirVersion: String
    var data: Data

    func encoded() -> Data {
        var result = Data(capacity: data.count + 64 + displayName.utf8.count)
        result.append(Self.format)
        for field in [displayName, resourceType, identifier, sourceURL ?? "", fhirVersion] {
            let bytes = Array(field.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { result.append(contentsOf: $0) }
            result.append(contentsOf: bytes)
        }
        result.append(data)
        return result
    }

    init(displayName: String, resourceType: String, identifier: String, sourceURL: String?, fhirVersion: String, data: Data) {
        self.displayName = displayName
        self.resourceType = resourceType
        self.identifier = identifier
        self.sourceURL = sourceURL
        self.fhirVersion = fhirVersion
        self.data = data
    }

    init(decoding encoded: Data) throws {
        let bytes = [UInt8](encoded)
        guard bytes.first == Self.format else { throw HealthStoreError(.corruptDatabase, "a clinical record has an unknown layout") }
        var offset = 1
        func field() throws -> String {
            guard bytes.count - offset >= 4 else { throw HealthStoreError(.corruptDatabase, "a clinical record is truncated") }
            var length = 0
            for index in 0..<4 { length |= Int(bytes[offset + index]) << (8 * index) }
            offset += 4
            guard bytes.count - offset >= length else { throw HealthStoreError(.corruptDatabase, "a clinical record is truncated") }
            defer { offset += length }
            return String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
        }
        displayName = try field()
        resourceType = try field()
        identifier = try field()
        let url = try field()
        sourceURL = url.isEmpty ? nil : url
        fhirVersion = try field()
        data = Data(bytes[offset...])
    }
}

/// A verifiable record's sealed details (JSON in the extra section: records are few and small).
struct VerifiableRecordDetails: Codable, Equatable {
    var recordTypes: [String]
    var issuerIdentifier: String
    var subjectName: String
    var birthYear: Int?
    var birthMonth: Int?
    var birthDay: Int?
    /// Seconds since the reference date.
    var issuedDate: Double
    var expirationDate: Double?
    var itemNames: [String]
    var sourceType: String?
    var data: Data

    var birthDateComponents: DateComponents? {
        guard birthYear != nil || birthMonth != nil || birthDay != nil else { return nil }
        return DateComponents(year: birthYear, month: birthMonth, day: birthDay)
    }

    init(_ record: HKVerifiableClinicalRecord) {
        recordTypes = record.recordTypes
        issuerIdentifier = record.issuerIdentifier
        subjectName = record.subject.fullName
        birthYear = record.subject.dateOfBirthComponents?.year
        birthMonth = record.subject.dateOfBirthComponents?.month
        birthDay = record.subject.dateOfBirthComponents?.day
        issuedDate = record.issuedDate.timeIntervalSinceReferenceDate
        expirationDate = record.expirationDate?.timeIntervalSinceReferenceDate
        itemNames = record.itemNames
        sourceType = record.sourceType?.rawValue
        data = record.dataRepresentation
    }
}
