import Foundation

/// One sealed block of a workout route's locations: up to ``capacity`` locations in time order,
/// stored in `route_block` beside the route's `sample` row (schema v6-workout-routes).
///
/// Plaintext layout (little-endian): format byte, then per location ten `Double`s: latitude,
/// longitude, altitude, horizontal and vertical accuracy, course and its accuracy, speed and
/// its accuracy, and the timestamp (seconds since the reference date). The block's first and
/// last timestamps are kept in the clear, like a sample's dates, so a query for part of a
/// route opens only the blocks it needs.
struct RouteBlock: Sendable {
    /// The most locations in one block.
    static let capacity = 1_024
    static let format: UInt8 = 1
    private static let fields = 10
    private static let stride = fields * 8

    var position: Int
    var first: Double
    var last: Double
    var count: Int
    var sealed: Data

    /// The additional authenticated data a block is bound to: its route, position and count.
    static func context(route uuid: UUID, position: Int, count: Int) -> Data {
        var data = Data("route-block".utf8)
        data.append(uuid.databaseBlob)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: position).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: count).littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// Seals locations (already validated and in time order) into blocks.
    static func seal(_ locations: [CLLocation], route uuid: UUID, cipher: RecordCipher) throws -> [RouteBlock] {
        var blocks: [RouteBlock] = []
        blocks.reserveCapacity((locations.count + capacity - 1) / capacity)
        var start = 0
        while start < locations.count {
            let slice = locations[start..<min(start + capacity, locations.count)]
            var plain = Data(capacity: 1 + slice.count * stride)
            plain.append(format)
            for location in slice {
                for value in [location.coordinate.latitude, location.coordinate.longitude, location.altitude, location.horizontalAccuracy,
                              location.verticalAccuracy, location.course, location.courseAccuracy, location.speed, location.speedAccuracy,
                              location.timestamp.timeIntervalSinceReferenceDate] {
                    withUnsafeBytes(of: value.bitPattern.littleEndian) { plain.append(contentsOf: $0) }
                }
            }
            let position = blocks.count
            let sealed = try cipher.sealRoute(plain, context: context(route: uuid, position: position, count: slice.count))
            blocks.append(RouteBlock(position: position, first: slice.first?.timestamp.timeIntervalSinceReferenceDate ?? 0,
                                     last: slice.last?.timestamp.timeIntervalSinceReferenceDate ?? 0, count: slice.count, sealed: sealed))
            start += capacity
        }
        return blocks
    }

    /// Opens a sealed block of `count` locations.
    static func open(_ sealed: Data, route uuid: UUID, position: Int, count: Int, cipher: RecordCipher) throws -> [CLLocation] {
        let plain = try cipher.openRoute(sealed, context: context(route: uuid, position: position, count: count))
        let bytes = [UInt8](plain)
        guard bytes.first == format, bytes.count == 1 + count * stride else {
            throw HealthStoreError(.corruptDatabase, "a route block has an unknown layout")
        }
        var locations: [CLLocation] = []
        locations.reserveCapacity(count)
        var values = [Double](repeating: 0, count: fields)
        var offset = 1
        for _ in 0..<count {
            for field in 0..<fields {
                var bits: UInt64 = 0
                for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
                values[field] = Double(bitPattern: bits)
                offset += 8
            }
            locations.append(CLLocation(coordinate: CLLocationCoordinate2D(latitude: values[0], longitude: values[1]), altitude: values[2],
                                        horizontalAccuracy: values[3], verticalAccuracy: values[4], course: values[5],
                                        courseAccuracy: values[6], speed: values[7], speedAccuracy: values[8],
                                        timestamp: Date(timeIntervalSinceReferenceDate: values[9])))
        }
        return locations
    }

    /// Checks the locations a route is saved with: at least one, coordinates on Earth, finite
    /// values and timestamps.
    static func validate(_ locations: [CLLocation]) throws {
        guard !locations.isEmpty else { throw HKError(.errorInvalidArgument, "a workout route needs at least one location") }
        for location in locations {
            guard CLLocationCoordinate2DIsValid(location.coordinate) else {
                throw HKError(.errorInvalidArgument, "a route location has an invalid coordinate")
            }
            let values = [location.altitude, location.horizontalAccuracy, location.verticalAccuracy, location.course, location.courseAccuracy,
                          location.speed, location.speedAccuracy, location.timestamp.timeIntervalSinceReferenceDate]
            guard values.allSatisfy(\.isFinite) else {
                throw HKError(.errorInvalidArgument, "a route location has a value that is not finite")
            }
        }
    }
}
