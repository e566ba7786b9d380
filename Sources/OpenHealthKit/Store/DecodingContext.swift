import Foundation

/// Per-read caches, so decoding a row does not rebuild the same type, unit and source
/// objects for every sample of a large result. Used by one read on one thread.
final class DecodingContext {
    let cipher: RecordCipher
    let decoder = JSONDecoder()
    private var quantityTypes: [String: HKQuantityType] = [:]
    private var categoryTypes: [String: HKCategoryType] = [:]
    private var revisions: [SourceRevisionRecord: HKSourceRevision] = [:]
    private var units: [String: HKUnit] = [:]

    init(cipher: RecordCipher) {
        self.cipher = cipher
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
