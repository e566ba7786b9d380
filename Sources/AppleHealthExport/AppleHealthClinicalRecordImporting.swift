import Foundation

/// Imports the clinical records of an export (`clinical-records/*.json`, one FHIR resource per
/// file, as the Health app writes them): the importer reads the files and hands each to this.
///
/// The `AppleHealthClinicalRecords` module conforms through HealthRecords' importer, so that
/// this module does not depend on the FHIR models.
public protocol AppleHealthClinicalRecordImporting: Sendable {
    /// Imports one file's resource, replacing a record imported before from the same resource.
    /// - Returns: the clinical type identifiers of the records stored, those of the records the
    ///   store already had with the same content (an export imported again), and the reasons for
    ///   what was not stored (without values from the file).
    func importClinicalRecord(_ bytes: [UInt8], file: AppleHealthClinicalRecordFile) async throws
        -> (stored: [String], alreadyStored: [String], notStored: [String])
}

/// A clinical record file of an export, with what the export's `ClinicalRecord` element says
/// about it.
public struct AppleHealthClinicalRecordFile: Sendable, Equatable {
    /// The file's name in `clinical-records/`.
    public var name: String
    /// The provider, from the `ClinicalRecord` element's `sourceName`.
    public var sourceName: String?
    /// The FHIR version, from the element's `fhirVersion` (`1.0.2`, `4.0.1`).
    public var fhirVersion: String?

    /// Creates a description.
    public init(name: String, sourceName: String? = nil, fhirVersion: String? = nil) {
        self.name = name
        self.sourceName = sourceName
        self.fhirVersion = fhirVersion
    }
}
