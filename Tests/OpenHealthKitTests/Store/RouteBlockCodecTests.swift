import Crypto
import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

/// Route blocks' format 2 (``RouteBlockCodec``): every bit pattern reads back bit for bit, GPX
/// routes take a seventh of format 1's room, format 1 blocks still read, and no bytes crash it.
@Suite("Route blocks: compact, lossless locations")
struct RouteBlockCodecTests {
    static let fields = RouteBlock.fields

    /// Values of one field for `count` locations, of a kind picked by `kind`.
    static func column(_ kind: Int, count: Int, random: inout SplitMix64) -> [Double] {
        func decimal(_ digits: Int, around center: Int64, step: Int64) -> [Double] {
            var integer = center
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            return (0..<count).map { _ in
                integer += Int64(random.below(Int(2 * step + 1))) - step
                // Parsed from text, as a GPX reader does.
                return Double(String(format: "%.\(digits)f", Double(integer) / scale)) ?? 0
            }
        }
        switch kind {
        case 0: return decimal(6, around: 47_384_851, step: 40)  // a latitude
        case 1: return decimal(random.int(0...8), around: Int64(random.int(-1_000_000...1_000_000)), step: Int64(random.int(0...100_000)))
        case 2: return (0..<count).map { _ in Double(bitPattern: random.next()) }  // any bit pattern, NaNs and infinities too
        case 3: return (0..<count).map { _ in [0.0, -0.0, -1, 1][random.below(4)] }
        case 4: return (0..<count).map { _ in [Double.greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
                                                -.leastNonzeroMagnitude, .leastNormalMagnitude, 9_007_199_254_740_994, 1e300, -1e-300,
                                                9_007_199_254_740_992, 1e22, 1e23, 0.1 + 0.2][random.below(12)] }
        case 5: return decimal(0, around: 786_000_000, step: 1).map { $0 + (random.chance(0.01) ? 0.5 : 0) }  // whole seconds, a few halves
        case 6:  // decimals with the odd value that is not one
            return decimal(3, around: 2_000, step: 400).map { random.chance(0.02) ? $0.nextUp : $0 }
        case 7: return [Double](repeating: -1, count: count)
        default:  // finite, arbitrary bit patterns of every magnitude
            return (0..<count).map { _ in
                var value = Double(bitPattern: random.next())
                while !value.isFinite { value = Double(bitPattern: random.next()) }
                return value
            }
        }
    }

    static func roundTrip(_ values: [Double], count: Int) throws -> [Double] {
        var out: [UInt8] = [RouteBlock.format]
        RouteBlockCodec.encode(values, fields: fields, count: count, into: &out)
        return try RouteBlockCodec.decode(out, from: 1, fields: fields, count: count)
    }

    @Test("Every value reads back bit for bit: decimals, negative zero, extremes, NaNs, arbitrary bit patterns")
    func roundTripsBitForBit() throws {
        var random = SplitMix64(seed: 36)
        for round in 0..<400 {
            let count = round < 40 ? round + 1 : random.int(1...RouteBlock.capacity)
            var values: [Double] = []
            for _ in 0..<Self.fields { values += Self.column(random.below(9), count: count, random: &random) }
            let decoded = try Self.roundTrip(values, count: count)
            #expect(decoded.map(\.bitPattern) == values.map(\.bitPattern), "round \(round), \(count) locations")
        }
    }

    @Test("Mixed columns: decimals of many scales with raw values sprinkled in read back bit for bit")
    func mixedColumns() throws {
        var random = SplitMix64(seed: 37)
        for round in 0..<200 {
            let count = random.int(1...RouteBlock.capacity)
            var values: [Double] = []
            for _ in 0..<Self.fields {
                let kinds = (0..<3).map { _ in random.below(9) }
                let columns = kinds.map { Self.column($0, count: count, random: &random) }
                values += (0..<count).map { columns[random.below(100) < 90 ? 0 : 1 + random.below(2)][$0] }
            }
            let decoded = try Self.roundTrip(values, count: count)
            #expect(decoded.map(\.bitPattern) == values.map(\.bitPattern), "round \(round)")
        }
    }

    /// A GPX-like route: six decimals for coordinates and the rest, whole-second timestamps,
    /// unknown accuracies of course and speed.
    static func gpxRoute(_ count: Int, seed: UInt64) -> [CLLocation] {
        var random = SplitMix64(seed: seed)
        func text(_ value: Double, _ digits: Int) -> Double { Double(String(format: "%.\(digits)f", value)) ?? 0 }
        var (latitude, longitude, elevation) = (47.384851, 8.562410, 408.0)
        return (0..<count).map { index in
            latitude += 0.000021 + Double(random.below(30)) / 1e7
            longitude += 0.000006 + Double(random.below(30)) / 1e7
            elevation += Double(random.below(2_000) - 1_000) / 1e5
            let horizontal = 1.8 + Double(random.below(400)) / 1_000
            return CLLocation(coordinate: CLLocationCoordinate2D(latitude: text(latitude, 6), longitude: text(longitude, 6)),
                              altitude: text(elevation, 6), horizontalAccuracy: text(horizontal, 6), verticalAccuracy: text(horizontal * 0.6, 6),
                              course: text(100 + Double(random.below(1_000_000)) / 1e6, 6), courseAccuracy: -1,
                              speed: text(2.8 + Double(random.below(40_000)) / 1e6, 6), speedAccuracy: -1,
                              timestamp: Date(timeIntervalSinceReferenceDate: 694_329_000 + Double(index)))
        }
    }

    static func same(_ lhs: [CLLocation], _ rhs: [CLLocation]) -> Bool {
        func bits(_ location: CLLocation) -> [UInt64] {
            [location.coordinate.latitude, location.coordinate.longitude, location.altitude, location.horizontalAccuracy,
             location.verticalAccuracy, location.course, location.courseAccuracy, location.speed, location.speedAccuracy,
             location.timestamp.timeIntervalSinceReferenceDate].map(\.bitPattern)
        }
        return lhs.map(bits) == rhs.map(bits)
    }

    @Test("A GPX route takes at most 16 bytes a location in format 2 (format 1: 80), sealed and opened bit for bit")
    func gpxRouteIsCompact() throws {
        let cipher = RecordCipher(masterKey: SymmetricKey(size: .bits256))
        let route = UUID()
        let locations = Self.gpxRoute(2_500, seed: 5)
        let blocks = try RouteBlock.seal(locations, route: route, cipher: cipher)
        #expect(blocks.map(\.count) == [1_024, 1_024, 452])
        var opened: [CLLocation] = []
        for block in blocks {
            let plain = try cipher.openRoute(block.sealed, context: RouteBlock.context(route: route, position: block.position, count: block.count))
            #expect(plain.first == 2)
            #expect(plain.count <= 16 * block.count, "\(plain.count) bytes for \(block.count) locations")
            opened += try RouteBlock.open(block.sealed, route: route, position: block.position, count: block.count, cipher: cipher)
        }
        #expect(Self.same(opened, locations))
    }

    @Test("A format 1 block, sealed the old way, still opens to the same locations")
    func formatOneStillReads() throws {
        let cipher = RecordCipher(masterKey: SymmetricKey(size: .bits256))
        let route = UUID()
        var locations = Self.gpxRoute(300, seed: 6)
        locations.append(CLLocation(coordinate: CLLocationCoordinate2D(latitude: -0.0, longitude: 179.99999999999997), altitude: -0.0,
                                    horizontalAccuracy: 0.1 + 0.2, verticalAccuracy: -1, course: -1, courseAccuracy: -1, speed: -0.0,
                                    speedAccuracy: .leastNonzeroMagnitude, timestamp: Date(timeIntervalSinceReferenceDate: 694_339_000.123456)))
        // Format 1 as written before issue 36: format byte 1, then ten little-endian Doubles a location.
        var plain = Data([1])
        for location in locations {
            for value in [location.coordinate.latitude, location.coordinate.longitude, location.altitude, location.horizontalAccuracy,
                          location.verticalAccuracy, location.course, location.courseAccuracy, location.speed, location.speedAccuracy,
                          location.timestamp.timeIntervalSinceReferenceDate] {
                withUnsafeBytes(of: value.bitPattern.littleEndian) { plain.append(contentsOf: $0) }
            }
        }
        let sealed = try cipher.sealRoute(plain, context: RouteBlock.context(route: route, position: 0, count: locations.count))
        let opened = try RouteBlock.open(sealed, route: route, position: 0, count: locations.count, cipher: cipher)
        #expect(Self.same(opened, locations))
        // The same locations sealed now are format 2, smaller, and read back the same.
        let blocks = try RouteBlock.seal(locations, route: route, cipher: cipher)
        #expect(blocks.count == 1 && blocks[0].sealed.count < sealed.count / 4)
        #expect(Self.same(try RouteBlock.open(blocks[0].sealed, route: route, position: 0, count: locations.count, cipher: cipher), locations))
        // A format 1 block whose length does not match its count is corrupt, not a crash.
        #expect(throws: HealthStoreError.self) { _ = try RouteBlock.decode([UInt8](plain.dropLast()), count: locations.count) }
    }

    @Test("Format 2's bytes are pinned: constant, raw and decimal fields, bit-packed and varint differences, escapes")
    func pinnedBytes() throws {
        // Four locations: latitude decimal (order 1, packed), longitude constant, altitude with a
        // negative zero escaped, horizontal accuracy raw (binary fractions of no decimal scale).
        let locations = (0..<4).map { index in
            CLLocation(coordinate: CLLocationCoordinate2D(latitude: [47.5, 47.25, 47.0, 46.75][index], longitude: 8.5),
                       altitude: [400, -0.0, 401, 402][index], horizontalAccuracy: [0.1 + 0.2, 0.3 + 0.4, 1.0 / 3, 2.0 / 3][index],
                       verticalAccuracy: 3, course: [10, 20, 40, 70][index], courseAccuracy: -1, speed: [1, 1_000, 2, 5_000][index],
                       speedAccuracy: -1, timestamp: Date(timeIntervalSinceReferenceDate: 100 + Double(index)))
        }
        let plain = [UInt8](RouteBlock.encode(locations[...]))
        let hex = plain.map { String(format: "%02x", $0) }.joined()
        #expect(hex == Self.pinnedHex, "\(hex)")
        #expect(Self.same(try RouteBlock.decode(plain, count: 4), locations))
    }

    static let pinnedHex = "0202020100009c4a0031010000000000002140020001000102000000000000008"
        + "0a006000200343333333333d33f666666666666e63f555555555555d53f555555555555e53f01000000000000084002000101001414283c01000000000000f0bf"
        + "020001010002ce0fcb0f8c4e01000000000000f0bf0200010000c8010002"

    @Test("Arbitrary, truncated, extended and altered bytes never crash the decoder")
    func garbage() throws {
        var random = SplitMix64(seed: 38)
        func check(_ bytes: [UInt8], count: Int) {
            do {
                let locations = try RouteBlock.decode(bytes, count: count)
                #expect(locations.count == count)
            } catch is HealthStoreError {
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        for round in 0..<3_000 {
            let count = random.int(0...40)
            var bytes = random.bytes(random.below(200))
            if round % 3 != 0, !bytes.isEmpty { bytes[0] = RouteBlock.format }
            if round % 5 == 0, bytes.count > 1 { bytes[1] = UInt8(random.below(3)) }
            check(bytes, count: count)
            // Valid encodings, cut short or extended, must throw; altered, throw or decode.
            var values: [Double] = []
            let valid = count == 0 ? 1 : count
            for _ in 0..<Self.fields { values += Self.column(random.below(9), count: valid, random: &random) }
            var encoded: [UInt8] = [RouteBlock.format]
            RouteBlockCodec.encode(values, fields: Self.fields, count: valid, into: &encoded)
            #expect(throws: HealthStoreError.self) { _ = try RouteBlock.decode(Array(encoded.prefix(random.below(encoded.count))), count: valid) }
            #expect(throws: HealthStoreError.self) { _ = try RouteBlock.decode(encoded + [UInt8(random.below(256))], count: valid) }
            var altered = encoded
            for _ in 0..<random.int(1...4) { altered[random.below(altered.count)] ^= UInt8(1 << random.below(8)) }
            check(altered, count: valid)
            check(encoded, count: random.int(0...1_100))
        }
    }
}
