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

    /// Whether this version records the resource's deletion (`DELETE /fhir/{type}/{id}`): its
    /// JSON is empty. A deletion is kept only in the history of versions; the resource has no
    /// current version after it until it is written again (with the next version).
    public var isDeletion: Bool { json.isEmpty }
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

/// A resource to create, replace or delete in its patient's compartment. The record's
/// `versionID` must be the stored version + 1 (1 for a create); otherwise the commit throws
/// ``TrustStoreError/conflict(_:)`` and writes nothing.
///
/// A deletion (``FHIRResourceRecord/isDeletion``, made by ``deletion(of:at:)``) removes the
/// current version (and its search index rows and recorded writer) and keeps the deletion as
/// the next version in the history. A write that ``followsDeletion`` creates the resource
/// again, with the version after the deletion's.
public struct FHIRResourceWrite: Sendable, Hashable {
    /// The record to write; its `versionID` must be the previous version + 1 (1 for a create).
    public var record: FHIRResourceRecord
    /// The identity (the token's client) that wrote this version, kept with it (see
    /// ``ResourceStore/resourceWriters(patient:type:)``): a health card issuer signs only what
    /// its listed sources wrote. Nil: no writer is recorded for this version.
    public var writer: CsiGuid?
    /// Whether the version before ``record``'s is a deletion: the resource has no current
    /// version, and this write creates it again (the commit conflicts if anyone did first).
    public var followsDeletion: Bool

    /// Creates a write.
    /// - Parameters:
    ///   - record: The version to write.
    ///   - writer: Who wrote it (nil: nobody is recorded).
    ///   - followsDeletion: Whether the version before is a deletion (see ``followsDeletion``).
    public init(record: FHIRResourceRecord, writer: CsiGuid? = nil, followsDeletion: Bool = false) {
        self.record = record
        self.writer = writer
        self.followsDeletion = followsDeletion
    }

    /// The deletion of `current` (the resource's current version) at `instant`: the next
    /// version, with empty JSON.
    /// - Parameters:
    ///   - current: The current version of the resource to delete.
    ///   - instant: When it is deleted.
    public static func deletion(of current: FHIRResourceRecord, at instant: Timestamp) -> FHIRResourceWrite {
        FHIRResourceWrite(record: FHIRResourceRecord(type: current.type, id: current.id, patient: current.patient, versionID: current.versionID + 1,
                                                     lastUpdated: instant, json: []))
    }
}
