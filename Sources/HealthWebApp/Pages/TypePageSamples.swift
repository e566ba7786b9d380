import Foundation
import OpenHealthKit

/// A page of a type's samples in a period, newest first, read by keyset both ways: the samples
/// that start in the period before a cursor (older pages) or after one (newer pages), at most
/// ``pageSize`` of them (an index range on the type and start, with a limit: never an offset scan,
/// never the whole history). Samples that start at the same instant stay on one page, so a page
/// may hold a few more than ``pageSize``; the older page's cursor is the start of this page's
/// oldest sample, the newer page's the start of its newest.
struct TypePageSamples {
    /// How many samples a page lists.
    static let pageSize = 50

    /// The page's samples, newest first.
    var samples: [HKSample]
    /// The cursor of the next (older) page; nil on the last one.
    var next: Date?
    /// The cursor of the previous (newer) page; nil on the newest one.
    var newer: Date?

    /// Reads a page of `type`'s samples starting in `interval`: before `before`, or after `after`,
    /// or (neither) the newest. A newer page that would reach the period's newest sample is the
    /// newest page, so paging back always ends on the page the type's page opens on.
    static func read(_ type: HKSampleType, in interval: DateInterval, before: Date?, after: Date? = nil, from store: HKHealthStore,
                     pageSize: Int = pageSize) async throws -> TypePageSamples {
        guard pageSize > 0 else { return TypePageSamples(samples: [], next: nil) }
        if let after, before == nil, let page = try await newer(type, in: interval, after: after, from: store, pageSize: pageSize) { return page }
        let end = min(before ?? interval.end, interval.end)
        guard end > interval.start else { return TypePageSamples(samples: [], next: nil) }
        var page = try await older(type, in: interval, end: end, from: store, pageSize: pageSize)
        if before != nil, let newest = page.samples.first?.startDate,
           try await !starting(type, from: justAfter(newest), before: interval.end, limit: 1, in: store).isEmpty {
            page.newer = newest
        }
        return page
    }

    /// The page of the samples starting in the period before `end`, newest first.
    private static func older(_ type: HKSampleType, in interval: DateInterval, end: Date, from store: HKHealthStore,
                              pageSize: Int) async throws -> TypePageSamples {
        let found = try await starting(type, from: interval.start, before: end, limit: pageSize + 1, in: store)
        guard found.count > pageSize else { return TypePageSamples(samples: found, next: nil) }
        let boundary = found[pageSize - 1].startDate
        guard found[pageSize].startDate == boundary else { return TypePageSamples(samples: Array(found.prefix(pageSize)), next: boundary) }
        // The page would split the samples starting at `boundary`: it takes all of them.
        let tied = try await starting(type, from: boundary, before: justAfter(boundary), limit: nil, in: store)
        let older = try await starting(type, from: interval.start, before: boundary, limit: 1, in: store)
        return TypePageSamples(samples: found.prefix(pageSize).filter { $0.startDate > boundary } + tied, next: older.isEmpty ? nil : boundary)
    }

    /// The page of the samples starting in the period after `after`, the oldest `pageSize` of them
    /// (and those tied with the newest of them), newest first; nil when no more than `pageSize`
    /// start after it (the newest page holds them).
    private static func newer(_ type: HKSampleType, in interval: DateInterval, after: Date, from store: HKHealthStore,
                              pageSize: Int) async throws -> TypePageSamples? {
        let start = max(justAfter(after), interval.start)
        guard start < interval.end else { return nil }
        let found = try await starting(type, from: start, before: interval.end, limit: pageSize + 1, in: store, oldestFirst: true)
        guard found.count > pageSize else { return nil }
        let boundary = found[pageSize - 1].startDate
        var samples = Array(found.prefix(pageSize))
        var newer: Date? = boundary
        if found[pageSize].startDate == boundary {
            // The page would split the samples starting at `boundary`: it takes all of them.
            samples = samples.filter { $0.startDate < boundary }
                + (try await starting(type, from: boundary, before: justAfter(boundary), limit: nil, in: store, oldestFirst: true))
            if try await starting(type, from: justAfter(boundary), before: interval.end, limit: 1, in: store).isEmpty { newer = nil }
        }
        let oldest = samples.first?.startDate ?? start
        let older = try await starting(type, from: interval.start, before: oldest, limit: 1, in: store)
        return TypePageSamples(samples: samples.reversed(), next: older.isEmpty ? nil : oldest, newer: newer)
    }

    /// The smallest instant after `date`.
    private static func justAfter(_ date: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.nextUp)
    }

    /// The samples of `type` that start in [`start`, `end`), newest first (or oldest first).
    private static func starting(_ type: HKSampleType, from start: Date, before end: Date, limit: Int?,
                                 in store: HKHealthStore, oldestFirst: Bool = false) async throws -> [HKSample] {
        try await HKSampleQueryDescriptor(
            predicates: [.sample(type: type, predicate: HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate))],
            sortDescriptors: [SortDescriptor(\HKSample.startDate, order: oldestFirst ? .forward : .reverse)], limit: limit).result(for: store)
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
