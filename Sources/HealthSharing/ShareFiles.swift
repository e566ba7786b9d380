import ExactJSON
import Foundation
import OpenHealthKit
import SmartHealthLinks

/// One file of a link before it is encrypted: what a receiver gets after decrypting it.
public struct ShareFile: Sendable, Hashable {
    /// `application/fhir+json` for the summary and records, `application/smart-health-card` for a card.
    public var contentType: String
    /// The file's bytes (JSON).
    public var content: [UInt8]

    /// A file.
    ///
    /// - Parameters:
    ///   - contentType: The file's media type.
    ///   - content: The file's bytes.
    public init(contentType: String, content: [UInt8]) {
        self.contentType = contentType
        self.content = content
    }
}

/// Builds the files of a link from the person's store, as they are today.
///
/// The summary is one file (a FHIR `document` Bundle shaped as the International Patient
/// Summary); the records chosen by type or one by one are one file together (a `collection`
/// Bundle); each health card is one file.
public struct ShareFileBuilder: Sendable {
    /// The owner's store the content is read from.
    public let store: HKHealthStore

    /// A builder reading `store`.
    ///
    /// - Parameter store: The owner's store.
    public init(store: HKHealthStore) {
        self.store = store
    }

    /// The files for `contents`, in the order of `contents` (the records of every `records` and
    /// `record` part together, in the place of the first such part).
    ///
    /// - Parameters:
    ///   - contents: What to share.
    ///   - now: The instant the summary is dated with.
    /// - Throws: ``ShareError/invalidOptions(_:)`` for no contents or an unknown record type,
    ///   ``ShareError/nothingToShare(_:)`` when a part matches nothing, ``ShareError/store(_:)``.
    public func files(for contents: [ShareContent], now: Date = Date()) async throws(ShareError) -> [ShareFile] {
        guard !contents.isEmpty else { throw .invalidOptions("choose what to share: the summary, records or cards") }
        var files: [ShareFile] = []
        var recordsPlaced = false
        var cardsSeen = Set<UUID>()
        for content in contents {
            switch content {
            case .summary:
                files.append(try await summaryFile(now: now))
            case .records, .record:
                guard !recordsPlaced else { continue }
                recordsPlaced = true
                files.append(try await recordsFile(contents))
            case .cards:
                for card in try await cards() where cardsSeen.insert(card.uuid).inserted {
                    files.append(Self.cardFile(card))
                }
                if cardsSeen.isEmpty { throw .nothingToShare("the store holds no health cards") }
            case .card(let uuid):
                guard let card = try await cards().first(where: { $0.uuid == uuid }) else {
                    throw .nothingToShare("no health card \(uuid.uuidString) in the store")
                }
                if cardsSeen.insert(uuid).inserted { files.append(Self.cardFile(card)) }
            }
        }
        return files
    }

    /// The patient summary document of the store as it is now.
    ///
    /// - Parameter now: The instant the document is dated with.
    /// - Returns: The summary file.
    public func summaryFile(now: Date = Date()) async throws(ShareError) -> ShareFile {
        let records = try await clinicalRecords(types: HKObjectType.allClinicalTypes)
        let profile: HKOwnerProfile
        do {
            profile = try await store.ownerProfile()
        } catch {
            throw .store("cannot read the owner's profile: \(error)")
        }
        let cards = profile.identifiesPerson ? [] : try await cards()
        guard !records.isEmpty || profile.identifiesPerson || !cards.isEmpty else {
            throw .nothingToShare("the store holds no clinical records and no profile to summarize")
        }
        let document = PatientSummary.document(records: records, profile: profile, cards: cards, now: now, identifier: UUID())
        return ShareFile(contentType: SHLContentType.fhirJSON, content: JSONWriter.serialize(document))
    }

    private func recordsFile(_ contents: [ShareContent]) async throws(ShareError) -> ShareFile {
        var chosen: [HKClinicalRecord] = []
        var seen = Set<UUID>()
        var all: [HKClinicalRecord]?
        for content in contents {
            switch content {
            case .records(let names):
                guard !names.isEmpty else { throw .invalidOptions("--records needs at least one record type") }
                var types: [HKClinicalType] = []
                for name in names {
                    guard let type = HKObjectType.sampleType(named: name) as? HKClinicalType else {
                        throw .invalidOptions("unknown record type '\(name)': use allergyRecord, conditionRecord, immunizationRecord, "
                            + "labResultRecord, medicationRecord, procedureRecord, vitalSignRecord, coverageRecord or clinicalNoteRecord")
                    }
                    types.append(type)
                }
                let records = try await clinicalRecords(types: types)
                if records.isEmpty {
                    throw .nothingToShare("the store holds no \(names.joined(separator: ", ")) records")
                }
                for record in records where seen.insert(record.uuid).inserted { chosen.append(record) }
            case .record(let uuid):
                if all == nil { all = try await clinicalRecords(types: HKObjectType.allClinicalTypes) }
                guard let record = all?.first(where: { $0.uuid == uuid }) else {
                    throw .nothingToShare("no clinical record \(uuid.uuidString) in the store")
                }
                if seen.insert(uuid).inserted { chosen.append(record) }
            case .summary, .cards, .card:
                continue
            }
        }
        let bundle = PatientSummary.collection(records: chosen)
        return ShareFile(contentType: SHLContentType.fhirJSON, content: JSONWriter.serialize(bundle))
    }

    static func cardFile(_ card: HKVerifiableClinicalRecord) -> ShareFile {
        let jws = String(decoding: card.jwsRepresentation, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let file = JSONValue.object(members: [JSONMember("verifiableCredential", .array([.string(jws)]))])
        return ShareFile(contentType: SHLContentType.smartHealthCard, content: JSONWriter.serialize(file))
    }

    /// The store's clinical records of `types`, oldest first.
    func clinicalRecords(types: [HKClinicalType]) async throws(ShareError) -> [HKClinicalRecord] {
        let descriptor = HKSampleQueryDescriptor(predicates: types.map { HKSamplePredicate<HKSample>.sample(type: $0) },
                                                 sortDescriptors: [SortDescriptor(\.startDate, order: .forward)])
        do {
            return try await descriptor.result(for: store).compactMap { $0 as? HKClinicalRecord }
        } catch {
            throw .store("cannot read the clinical records: \(error)")
        }
    }

    /// The store's health cards, oldest first.
    func cards() async throws(ShareError) -> [HKVerifiableClinicalRecord] {
        let descriptor = HKSampleQueryDescriptor(predicates: [HKSamplePredicate<HKSample>.sample(type: HKObjectType.verifiableClinicalRecordType())],
                                                 sortDescriptors: [SortDescriptor(\.startDate, order: .forward)])
        do {
            return try await descriptor.result(for: store).compactMap { $0 as? HKVerifiableClinicalRecord }
        } catch {
            throw .store("cannot read the health cards: \(error)")
        }
    }
}
