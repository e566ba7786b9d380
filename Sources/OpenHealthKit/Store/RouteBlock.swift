import Foundation

/// One sealed block of a workout route's locations: up to ``capacity`` locations in time order,
/// stored in `route_block` beside the route's `sample` row (schema v6-workout-routes).
///
/// Plaintext layout: a format byte, then the locations' ten values in this order: latitude,
/// longitude, altitude, horizontal and vertical accuracy, course and its accuracy, speed and
/// its accuracy, and the timestamp (seconds since the reference date).
/// - Format 2 (written since issue 36): the values field by field in ``RouteBlockCodec``'s
///   compact, exactly lossless encoding (about 11 bytes a location for GPX routes).
/// - Format 1 (still read): per location the ten values as little-endian `Double`s (80 bytes).
///
/// The block's first and last timestamps are kept in the clear, like a sample's dates, so a
/// query for part of a route opens only the blocks it needs.
struct RouteBlock: Sendable {
    /// The most locations in one block.
    static let capacity = 1_024
    /// The format new blocks are written in.
    static let format: UInt8 = 2
    /// The first format: ten `Double`s a location.
    static let plainFormat: UInt8 = 1
    static let fields = 10
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
            let plain = encode(slice)
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
        return try decode([UInt8](plain), count: count)
    }

    /// A block's plaintext in the current format (``format``).
    static func encode(_ locations: ArraySlice<CLLocation>) -> Data {
        let count = locations.count
        var values = [Double](repeating: 0, count: fields * count)
        for (index, location) in zip(0..., locations) {
            values[index] = location.coordinate.latitude
            values[count + index] = location.coordinate.longitude
            values[2 * count + index] = location.altitude
            values[3 * count + index] = location.horizontalAccuracy
            values[4 * count + index] = location.verticalAccuracy
            values[5 * count + index] = location.course
            values[6 * count + index] = location.courseAccuracy
            values[7 * count + index] = location.speed
            values[8 * count + index] = location.speedAccuracy
            values[9 * count + index] = location.timestamp.timeIntervalSinceReferenceDate
        }
        var plain: [UInt8] = [format]
        plain.reserveCapacity(1 + count * 16)
        RouteBlockCodec.encode(values, fields: fields, count: count, into: &plain)
        return Data(plain)
    }

    /// The `count` locations of a block's plaintext in either format; anything else is
    /// `corruptDatabase`, never a crash.
    static func decode(_ bytes: [UInt8], count: Int) throws -> [CLLocation] {
        guard (0...capacity).contains(count) else { throw HealthStoreError(.corruptDatabase, "a route block has an impossible count") }
        let values: [Double]
        switch bytes.first {
        case format:
            values = try RouteBlockCodec.decode(bytes, from: 1, fields: fields, count: count)
        case plainFormat:
            guard bytes.count == 1 + count * stride else { throw HealthStoreError(.corruptDatabase, "a route block has an unknown layout") }
            // Location-major in the block; field-major here.
            var fieldMajor = [Double](repeating: 0, count: fields * count)
            var offset = 1
            for index in 0..<count {
                for field in 0..<fields {
                    var bits: UInt64 = 0
                    for byte in 0..<8 { bits |= UInt64(bytes[offset + byte]) << (8 * UInt64(byte)) }
                    fieldMajor[field * count + index] = Double(bitPattern: bits)
                    offset += 8
                }
            }
            values = fieldMajor
        default:
            throw HealthStoreError(.corruptDatabase, "a route block has an unknown layout")
        }
        var locations: [CLLocation] = []
        locations.reserveCapacity(count)
        for index in 0..<count {
            func value(_ field: Int) -> Double { values[field * count + index] }
            locations.append(CLLocation(coordinate: CLLocationCoordinate2D(latitude: value(0), longitude: value(1)), altitude: value(2),
                                        horizontalAccuracy: value(3), verticalAccuracy: value(4), course: value(5),
                                        courseAccuracy: value(6), speed: value(7), speedAccuracy: value(8),
                                        timestamp: Date(timeIntervalSinceReferenceDate: value(9))))
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
