import Foundation
import OpenHealthKit

/// A page of one category's records for the Share form's single-record picker, newest first,
/// read by keyset as the type pages read samples (``TypePageSamples``): the records that start
/// before a cursor (an instant), at most ``pageSize`` of them, with a limit (never the whole
/// category). Records that start at the same instant stay on one page, so a page may hold a few
/// more than ``pageSize``; the next page's cursor is the start of this page's oldest record.
/// Walking the pages lists every record of the category once.
struct ShareRecordPicks {
    /// How many records a page lists.
    static let pageSize = ShareView.picksPerGroup

    /// The page's records, newest first.
    var records: [HKClinicalRecord]
    /// The cursor of the next (older) page; nil on the last one.
    var next: Date?

    /// Reads a page of `type`'s records before `before` (nil: the newest).
    static func read(_ type: HKClinicalType, before: Date?, from store: HKHealthStore, pageSize: Int = pageSize) async throws -> ShareRecordPicks {
        guard pageSize > 0 else { return ShareRecordPicks(records: [], next: nil) }
        let found = try await starting(type, from: nil, before: before, limit: pageSize + 1, in: store)
        guard found.count > pageSize else { return ShareRecordPicks(records: found, next: nil) }
        let boundary = found[pageSize - 1].startDate
        guard found[pageSize].startDate == boundary else { return ShareRecordPicks(records: Array(found.prefix(pageSize)), next: boundary) }
        // The page would split the records starting at `boundary`: it takes all of them.
        let justAfter = Date(timeIntervalSinceReferenceDate: boundary.timeIntervalSinceReferenceDate.nextUp)
        let tied = try await starting(type, from: boundary, before: justAfter, limit: nil, in: store)
        let older = try await starting(type, from: nil, before: boundary, limit: 1, in: store)
        return ShareRecordPicks(records: found.prefix(pageSize).filter { $0.startDate > boundary } + tied, next: older.isEmpty ? nil : boundary)
    }

    /// The records of `type` that start in [`start`, `end`) (either open), newest first.
    private static func starting(_ type: HKClinicalType, from start: Date?, before end: Date?, limit: Int?,
                                 in store: HKHealthStore) async throws -> [HKClinicalRecord] {
        try await HKSampleQueryDescriptor(
            predicates: [.clinicalRecord(type: type, predicate: HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate))],
            sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate, order: .reverse)], limit: limit).result(for: store)
    }

    /// The page of the picker a Share address asks: `?pick=TYPE&before=CURSOR` (a clinical type's
    /// identifier, and a cursor as ``TypePageSamples/cursorText(_:)`` writes it); nil for the
    /// newest records of every category, and for a type or cursor that is not one.
    static func request(pick: String?, before: String?) -> (type: HKClinicalType, before: Date?)? {
        guard let pick, let type = HKObjectType.allClinicalTypes.first(where: { $0.identifier == pick }) else { return nil }
        guard let before else { return (type, nil) }
        guard let cursor = TypePageSamples.cursor(before) else { return nil }
        return (type, cursor)
    }

    /// The address of a picker page.
    static func address(_ type: HKClinicalType, before: Date?) -> String {
        "/share?pick=" + HealthWebApp.queryValue(type.identifier) + (before.map { "&before=" + TypePageSamples.cursorText($0) } ?? "") + "#picks"
    }
}
