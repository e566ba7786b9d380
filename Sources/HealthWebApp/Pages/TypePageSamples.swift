import Foundation
import OpenHealthKit

/// A page of a type's samples in a period, newest first, read by keyset: the samples that start
/// in the period before a cursor (an instant), at most ``pageSize`` of them (an index range on
/// the type and start, with a limit: never an offset scan, never the whole history). Samples
/// that start at the same instant stay on one page, so a page may hold a few more than
/// ``pageSize``; the next page's cursor is the start of this page's oldest sample.
struct TypePageSamples {
    /// How many samples a page lists.
    static let pageSize = 50

    /// The page's samples, newest first.
    var samples: [HKSample]
    /// The cursor of the next (older) page; nil on the last one.
    var next: Date?

    /// Reads a page of `type`'s samples starting in `interval`, before `before` (nil: the newest).
    static func read(_ type: HKSampleType, in interval: DateInterval, before: Date?, from store: HKHealthStore,
                     pageSize: Int = pageSize) async throws -> TypePageSamples {
        let end = min(before ?? interval.end, interval.end)
        guard end > interval.start, pageSize > 0 else { return TypePageSamples(samples: [], next: nil) }
        let found = try await starting(type, from: interval.start, before: end, limit: pageSize + 1, in: store)
        guard found.count > pageSize else { return TypePageSamples(samples: found, next: nil) }
        let boundary = found[pageSize - 1].startDate
        guard found[pageSize].startDate == boundary else { return TypePageSamples(samples: Array(found.prefix(pageSize)), next: boundary) }
        // The page would split the samples starting at `boundary`: it takes all of them.
        let justAfter = Date(timeIntervalSinceReferenceDate: boundary.timeIntervalSinceReferenceDate.nextUp)
        let tied = try await starting(type, from: boundary, before: justAfter, limit: nil, in: store)
        let older = try await starting(type, from: interval.start, before: boundary, limit: 1, in: store)
        return TypePageSamples(samples: found.prefix(pageSize).filter { $0.startDate > boundary } + tied, next: older.isEmpty ? nil : boundary)
    }

    /// The samples of `type` that start in [`start`, `end`), newest first.
    private static func starting(_ type: HKSampleType, from start: Date, before end: Date, limit: Int?,
                                 in store: HKHealthStore) async throws -> [HKSample] {
        try await HKSampleQueryDescriptor(
            predicates: [.sample(type: type, predicate: HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate))],
            sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)], limit: limit).result(for: store)
    }

    /// A cursor as the page's links write it: the instant's seconds since 2001 (exact: Swift
    /// writes the shortest text that reads back as the same number).
    static func cursorText(_ date: Date) -> String {
        String(date.timeIntervalSinceReferenceDate)
    }

    /// The cursor a link names; nil for anything that is not a finite number.
    static func cursor(_ text: String) -> Date? {
        guard text.count <= 40, let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e11 else { return nil }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }
}

/// The numbers of a workout's row: its route's length (the distance between its successive
/// locations), read through the route query.
enum TypePageWorkouts {
    /// The length in metres of the routes saved with `workout`; nil when it has none.
    static func routeLength(of workout: HKWorkout, in store: HKHealthStore) async throws -> Double? {
        let routes = try await HKSampleQueryDescriptor(
            predicates: [.sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: [SortDescriptor(\HKSample.startDate)]).result(for: store).compactMap { $0 as? HKWorkoutRoute }
        guard !routes.isEmpty else { return nil }
        var total = 0.0
        for route in routes {
            var previous: CLLocation?
            for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: store) {
                if let previous { total += location.distance(from: previous) }
                previous = location
            }
        }
        return total
    }
}
