import Foundation

/// Reads a workout route's locations in batches (HealthKit's `HKWorkoutRouteQuery`).
///
/// The data handler is called once per batch, in time order; the last call has `done` set.
/// A route the caller may not read (without read permission for `HKSeriesType.workoutRoute()`,
/// and not its own route while it may share the type) is reported as `errorNoData`, as is a
/// deleted route.
public final class HKWorkoutRouteQuery: HKQuery, @unchecked Sendable {
    /// The route whose locations are read.
    public let route: HKWorkoutRoute
    /// The period whose locations are read; nil for the whole route.
    public let dateInterval: DateInterval?
    private let dataHandler: @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void

    /// Creates a query for every location of a route, as HealthKit's `init(route:dataHandler:)`.
    public convenience init(route workoutRoute: HKWorkoutRoute,
                            dataHandler: @escaping @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void) {
        self.init(route: workoutRoute, dateInterval: nil, dataHandler: dataHandler)
    }

    /// Creates a query for the locations of a route whose timestamps fall in `dateInterval`
    /// (bounds included), as HealthKit's `init(route:dateInterval:dataHandler:)`.
    public convenience init(route workoutRoute: HKWorkoutRoute, dateInterval: DateInterval,
                            dataHandler: @escaping @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void) {
        self.init(route: workoutRoute, dateInterval: Optional(dateInterval), dataHandler: dataHandler)
    }

    private init(route: HKWorkoutRoute, dateInterval: DateInterval?,
                 dataHandler: @escaping @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void) {
        self.route = route
        self.dateInterval = dateInterval
        self.dataHandler = dataHandler
        super.init(objectType: HKSeriesType.workoutRoute(), predicate: nil)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let database = try await store.engine.databaseAsync()
            let scope = try await store.engine.readScopeAsync(for: HKWorkoutRouteTypeIdentifier)
            let blocks = try await database.routeBlocks(route: route.uuid, scope: scope, interval: dateInterval)
            if blocks.isEmpty {
                guard !lifecycle.isStopped else { return }
                dataHandler(self, [], true, nil)
                return
            }
            for (index, block) in blocks.enumerated() {
                var locations = try RouteBlock.open(block.sealed, route: route.uuid, position: block.position, count: block.count,
                                                    cipher: database.cipher)
                if let interval = dateInterval {
                    locations = locations.filter { interval.start <= $0.timestamp && $0.timestamp <= interval.end }
                }
                guard !lifecycle.isStopped else { return }
                dataHandler(self, locations, index == blocks.count - 1, nil)
            }
        } catch {
            guard !lifecycle.isStopped else { return }
            dataHandler(self, nil, true, error)
        }
    }
}
