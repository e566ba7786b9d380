import Foundation

/// The abstract superclass of everything stored in a health store (HealthKit's `HKObject`).
///
/// Objects are immutable. Two objects are equal when their UUIDs are equal, as in HealthKit.
open class HKObject: NSObject, @unchecked Sendable {
    /// The object's unique identifier, stable across saves and queries.
    public let uuid: UUID
    /// The app or device revision that saved the object. Before it is saved this is the
    /// current process's default source; samples read back carry the saving source.
    public let sourceRevision: HKSourceRevision
    /// The device that produced the data, if known.
    public let device: HKDevice?
    /// Metadata: `String` keys to `String`, number, `Bool`, `Date` or `HKQuantity` values.
    public let metadata: [String: Any]?

    /// The source (deprecated in HealthKit in favour of `sourceRevision`).
    @available(*, deprecated, renamed: "sourceRevision.source")
    public var source: HKSource { sourceRevision.source }

    init(uuid: UUID, sourceRevision: HKSourceRevision, device: HKDevice?, metadata: [String: Any]?) {
        self.uuid = uuid
        self.sourceRevision = sourceRevision
        self.device = device
        self.metadata = metadata
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? HKObject)?.uuid == uuid
    }

    open override var hash: Int { uuid.hashValue }

    /// The default revision given to objects an app creates.
    static func defaultRevision() -> HKSourceRevision {
        processRevision
    }

    private static let processRevision = HKSourceRevision(source: .default(), version: nil)
}

/// A deleted object, as reported by anchored object queries (HealthKit's `HKDeletedObject`).
///
/// Only the UUID and the sync metadata (`HKMetadataKeySyncIdentifier`,
/// `HKMetadataKeySyncVersion`) of the deleted object are kept.
public final class HKDeletedObject: NSObject, @unchecked Sendable {
    /// The UUID of the object that was deleted.
    public let uuid: UUID
    /// The sync identifier and version of the deleted object, if it had them.
    public let metadata: [String: Any]?

    init(uuid: UUID, metadata: [String: Any]?) {
        self.uuid = uuid
        self.metadata = metadata
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? HKDeletedObject)?.uuid == uuid
    }

    public override var hash: Int { uuid.hashValue }
}
