import Foundation
import GRDB

/// Per-read caches, so decoding a row does not rebuild the same type, unit, source and device
/// objects for every sample of a large result. Used by one read on one thread, inside the read
/// transaction of `db` (which holds the `device` rows records refer to).
final class DecodingContext {
    let cipher: RecordCipher
    let decoder = JSONDecoder()
    private let db: Database?
    private var devices: [Data: HKDevice] = [:]
    private var quantityTypes: [String: HKQuantityType] = [:]
    private var categoryTypes: [String: HKCategoryType] = [:]
    private var revisions: [SourceRevisionRecord: HKSourceRevision] = [:]
    private var units: [String: HKUnit] = [:]

    init(cipher: RecordCipher, db: Database?) {
        self.cipher = cipher
        self.db = db
    }

    /// The device a record refers to by its `device` row's keyed hash (v19-devices), decoded
    /// once per read.
    /// - Throws: `corruptDatabase` when the row is missing or malformed, `tamperedRecord` when it fails to open.
    func device(_ reference: Data) throws -> HKDevice {
        if let device = devices[reference] { return device }
        guard let db else { throw HealthStoreError(.corruptDatabase, "a sample's device was read without its store") }
        let json = try HealthDatabase.deviceJSON(db, reference: reference, cipher: cipher)
        guard let device = try? decoder.decode(HKDevice.self, from: json) else {
            throw HealthStoreError(.corruptDatabase, "a stored device is malformed")
        }
        devices[reference] = device
        return device
    }

    func quantityType(_ identifier: String) -> HKQuantityType {
        if let type = quantityTypes[identifier] { return type }
        let type = HKQuantityType(HKQuantityTypeIdentifier(rawValue: identifier))
        quantityTypes[identifier] = type
        return type
    }

    func categoryType(_ identifier: String) -> HKCategoryType {
        if let type = categoryTypes[identifier] { return type }
        let type = HKCategoryType(HKCategoryTypeIdentifier(rawValue: identifier))
        categoryTypes[identifier] = type
        return type
    }

    func revision(_ record: SourceRevisionRecord) -> HKSourceRevision {
        if let revision = revisions[record] { return revision }
        let revision = record.revision
        revisions[record] = revision
        return revision
    }

    func unit(_ string: String) -> HKUnit? {
        if let unit = units[string] { return unit }
        let unit = try? HKUnit.parse(string)
        units[string] = unit
        return unit
    }
}
