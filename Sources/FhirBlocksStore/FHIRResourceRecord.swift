import FhirBlocks

/// A stored FHIR R4 resource: its current version in one patient's compartment.
public struct FHIRResourceRecord: Sendable, Hashable {
    /// `resourceType`.
    public var type: String
    /// The logical id.
    public var id: String
    /// The wallet whose compartment it is in.
    public var patient: CsiGuid
    /// The version, from 1.
    public var versionID: Int
    /// When this version was written.
    public var lastUpdated: Timestamp
    /// The resource JSON as stored (with `id` and `meta.versionId`/`meta.lastUpdated` set).
    public var json: [UInt8]

    /// Creates a record.
    public init(type: String, id: String, patient: CsiGuid, versionID: Int, lastUpdated: Timestamp, json: [UInt8]) {
        self.type = type
        self.id = id
        self.patient = patient
        self.versionID = versionID
        self.lastUpdated = lastUpdated
        self.json = json
    }
}

/// Who wrote one version of a stored resource (``ResourceStore/resourceWriters(patient:type:)``).
public struct FHIRResourceWriter: Sendable, Hashable {
    /// The version written.
    public var versionID: Int
    /// The identity (a token's client) that wrote it.
    public var writer: CsiGuid

    /// Creates a writer record.
    public init(versionID: Int, writer: CsiGuid) {
        self.versionID = versionID
        self.writer = writer
    }
}

/// A resource to create or replace in its patient's compartment. The record's `versionID` must
/// be the stored version + 1 (1 for a create); otherwise the commit throws
/// ``TrustStoreError/conflict(_:)`` and writes nothing.
public struct FHIRResourceWrite: Sendable, Hashable {
    /// The record to write; its `versionID` must be the previous version + 1 (1 for a create).
    public var record: FHIRResourceRecord
    /// The identity (the token's client) that wrote this version, kept with it (see
    /// ``ResourceStore/resourceWriters(patient:type:)``): a health card issuer signs only what
    /// its listed sources wrote. Nil: no writer is recorded for this version.
    public var writer: CsiGuid?

    /// Creates a write.
    public init(record: FHIRResourceRecord, writer: CsiGuid? = nil) {
        self.record = record
        self.writer = writer
    }
}
