import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

@Suite("Value block formats: format 2's entries round-trip bit for bit, its decoder refuses bad bytes, format 1 still reads")
struct ValueBlockFormatTests {
    /// Doubles a format must carry exactly: signed zeros, infinities, NaNs with payloads,
    /// subnormals, the edges of whole-second starts (±2^53 and beyond) and fractions.
    static let extremes: [Double] = [
        0, -0.0, .infinity, -.infinity, .nan, Double(bitPattern: 0x7FF8_0000_DEAD_BEEF), Double(bitPattern: 0xFFF0_0000_0000_0001),
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        9_007_199_254_740_992, -9_007_199_254_740_992, 9_007_199_254_740_994, -9_007_199_254_740_994, 18_014_398_509_481_984,
        0.5, -0.5, 1e-300, 786_000_000.25, 786_000_000, -786_000_000, 1, -1, Double(Int64.max), Double(Int64.min),
    ]

    /// A random double: an extreme, a whole second near a two-year store's, a fraction, or any bits.
    static func double(_ random: inout SplitMix64) -> Double {
        switch random.below(6) {
        case 0: return extremes[random.below(extremes.count)]
        case 1, 2: return 750_000_000 + Double(random.below(70_000_000))
        case 3: return 750_000_000 + Double(random.below(70_000_000_000)) / 1000
        case 4: return Double(Int64(bitPattern: random.next()) >> Int64(random.below(64)))
        default: return Double(bitPattern: random.next())
        }
    }

    /// Random entries: ends equal to their starts, whole seconds after them, before them or
    /// anything; starts increasing, repeated or going back; values of every kind.
    static func entries(_ count: Int, _ random: inout SplitMix64) -> [ValueBlock.Entry] {
        var start = double(&random)
        return (0..<count).map { _ in
            switch random.below(5) {
            case 0: start = double(&random)
            case 1: break
            default: start += Double(random.below(600))
            }
            let end: Double
            switch random.below(5) {
            case 0, 1: end = start
            case 2: end = start + Double(1 + random.below(4_000))
            case 3: end = start - Double(random.below(100))
            default: end = double(&random)
            }
            let value: UInt64
            switch random.below(5) {
            case 0: value = Double(random.below(10_000)).bitPattern
            case 1: value = (Double(random.below(1_000_000)) / 1000 * 4184).bitPattern
            case 2: value = double(&random).bitPattern
            case 3: value = 0
            default: value = random.next()
            }
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { bytes in
                for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
            }
            return ValueBlock.Entry(uuid: UUID(uuid: uuid), start: start, end: end, valueBits: value)
        }
    }

    static func opened(_ entry: ValueBlock.Entry) -> ValueBlock.OpenedEntry {
        withUnsafeBytes(of: entry.uuid.uuid) { uuid in
            ValueBlock.OpenedEntry(uuidHead: ValueBlock.uuidHead(uuid), uuidTail: ValueBlock.uuidTail(uuid),
                                   startBits: entry.start.bitPattern, endBits: entry.end.bitPattern,
                                   valueBits: entry.valueBits)
        }
    }

    static func kind(of error: any Error) -> HealthStoreError.Kind? {
        (error as? HealthStoreError)?.kind
    }

    /// The kind of the `HealthStoreError` `body` throws, nil when it throws none.
    static func refusal(_ body: () throws -> Any) -> HealthStoreError.Kind? {
        do {
            _ = try body()
            return nil
        } catch {
            return kind(of: error)
        }
    }

    @Test("Random entries, extreme doubles included, round-trip bit for bit through format 2, sealed and opened", arguments: 0..<8)
    func roundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: 0x5EED_0000 + seed)
        let cipher = RecordCipher(masterKey: .init(size: .bits256))
        let type = HKQuantityTypeIdentifier.activeEnergyBurned.rawValue
        for round in 0..<40 {
            let count = round == 0 && seed == 0 ? ValueBlock.capacity : 1 + (random.below(round < 20 ? 8 : 300))
            let entries = Self.entries(count, &random)
            let plaintext = ValueBlock.plaintext(entries)
            #expect(plaintext.count % ValueBlock.format1EntrySize != 0)
            let decoded = try plaintext.withUnsafeBytes { try ValueBlock.decode($0) }
            #expect(decoded == entries.map(Self.opened))
            let block = try ValueBlock(opening: ValueBlock.seal(entries, type: type, cipher: cipher), type: type, cipher: cipher)
            #expect(block.count == count)
            for (index, entry) in entries.enumerated() {
                let bits = try withUnsafeBytes(of: entry.uuid.uuid) { uuid in
                    try block.valueBits(at: index, uuid: uuid, start: entry.start, end: entry.end)
                }
                #expect(bits == entry.valueBits)
            }
        }
    }

    @Test("Every plaintext length that would read as format 1 gets a zero byte, and decodes the same")
    func paddingKeepsFormatsApart() throws {
        // One-byte values after whole starts: entries of 10 to 12 bytes reach every length.
        var random = SplitMix64(seed: 40)
        var padded = 0
        for count in 1...120 {
            let entries = (0..<count).map { index in
                ValueBlock.Entry(uuid: UUID(), start: Double(index * 60), end: Double(index * 60 + Int(random.below(2)) * 60),
                                 valueBits: UInt64(random.below(3)) << 56)
            }
            let plaintext = ValueBlock.plaintext(entries)
            #expect(plaintext.count % 40 != 0)
            if plaintext.count % 40 == 1, plaintext.last == 0 {
                padded += 1
                // Without its zero byte it would be format 1's size: the byte must be there, and be zero.
                var altered = plaintext
                altered[altered.count - 1] = 1
                #expect(Self.refusal { try altered.withUnsafeBytes { try ValueBlock.decode($0) } } == .corruptDatabase)
            }
            #expect(try plaintext.withUnsafeBytes { try ValueBlock.decode($0) } == entries.map(Self.opened))
        }
        #expect(padded > 0)
    }

    @Test("The format-2 decoder refuses random and altered bytes as a corrupt database, never traps", arguments: 0..<4)
    func fuzz(seed: UInt64) throws {
        var random = SplitMix64(seed: 0xF022 + seed)
        var refused = 0
        for _ in 0..<5_000 {
            var bytes: [UInt8]
            if random.below(2) == 0 {
                bytes = (0..<Int(random.below(120))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if bytes.count >= 2, random.below(2) == 0 { (bytes[0], bytes[1]) = (UInt8(1 + random.below(4)), 0) }
            } else {
                bytes = ValueBlock.plaintext(Self.entries(1 + (random.below(6)), &random))
                switch random.below(3) {
                case 0: bytes.removeLast(1 + random.below(bytes.count))
                case 1: bytes.append(UInt8(truncatingIfNeeded: random.next()))
                default:
                    for _ in 0...random.below(3) { bytes[random.below(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 + random.below(255)) }
                }
            }
            do {
                let entries = try bytes.withUnsafeBytes { try ValueBlock.decode($0) }
                #expect(!entries.isEmpty)
            } catch {
                #expect(Self.kind(of: error) == .corruptDatabase, "\(error)")
                refused += 1
            }
        }
        #expect(refused > 2_500)
    }

    @Test("Format 2 is about half of format 1 on a two-year store's kinds of entry")
    func size() {
        // Active energy: a minute each, whole seconds, kilocalories with three decimals in joules.
        var random = SplitMix64(seed: 77)
        let energy = (0..<4_096).map { index -> ValueBlock.Entry in
            ValueBlock.Entry(uuid: .timeOrdered(), start: 757_000_000 + Double(index * 60), end: 757_000_060 + Double(index * 60),
                             valueBits: (Double(random.below(3_000)) / 1000 * 4184).bitPattern)
        }
        // Heart rate: instants about five minutes apart, whole beats per minute in count/s.
        let heart = (0..<4_096).map { index -> ValueBlock.Entry in
            let start = 757_000_000 + Double(index * 300 + random.below(30))
            return ValueBlock.Entry(uuid: .timeOrdered(), start: start, end: start, valueBits: (Double(50 + random.below(100)) / 60).bitPattern)
        }
        // Steps: whole counts over a few minutes.
        let steps = (0..<4_096).map { index -> ValueBlock.Entry in
            ValueBlock.Entry(uuid: .timeOrdered(), start: 757_000_000 + Double(index * 600), end: 757_000_000 + Double(index * 600 + 370),
                             valueBits: Double(random.below(1_000)).bitPattern)
        }
        // Samples get time-ordered UUIDs (HKSample's default): their first 8 bytes, written as
        // the difference from the last entry's, take two or three bytes.
        let kinds: [(String, [ValueBlock.Entry], Int)] = [("energy", energy, 23), ("heart", heart, 22), ("steps", steps, 19)]
        for (name, entries, most) in kinds {
            let perEntry = Double(ValueBlock.plaintext(entries).count) / Double(entries.count)
            #expect(perEntry <= Double(most), "\(name): \(perEntry) bytes an entry")
            #expect(ValueBlock.format1Plaintext(entries).count == 40 * entries.count)
        }
    }

    @Test("A block sealed in format 1 opens and reads; each format refuses the other's label")
    func format1Block() throws {
        let cipher = RecordCipher(masterKey: .init(size: .bits256))
        let type = HKQuantityTypeIdentifier.heartRate.rawValue
        var random = SplitMix64(seed: 9)
        let entries = Self.entries(50, &random)
        let old = try cipher.sealBlock(ValueBlock.format1Plaintext(entries), context: ValueBlock.format1Context(type: type, count: entries.count))
        #expect(old.count == 28 + 40 * 50)
        let block = try ValueBlock(opening: old, type: type, cipher: cipher)
        #expect(block.count == 50)
        for (index, entry) in entries.enumerated() {
            try withUnsafeBytes(of: entry.uuid.uuid) { uuid in
                let bits = try block.valueBits(at: index, uuid: uuid, start: entry.start, end: entry.end)
                #expect(bits == entry.valueBits)
                #expect(Self.refusal { try block.valueBits(at: (index + 1) % 50, uuid: uuid, start: entry.start, end: entry.end) } == .tamperedRecord)
            }
        }
        // Format 1's plaintext sealed under format 2's label, and the reverse, fail authentication.
        let mislabelled = try cipher.sealBlock(ValueBlock.format1Plaintext(entries), context: ValueBlock.context(type: type))
        #expect(Self.refusal { try ValueBlock(opening: mislabelled, type: type, cipher: cipher) } == .tamperedRecord)
        let new = ValueBlock.plaintext(entries)
        let mislabelledNew = try cipher.sealBlock(new, context: ValueBlock.format1Context(type: type, count: entries.count))
        #expect(Self.refusal { try ValueBlock(opening: mislabelledNew, type: type, cipher: cipher) } == .tamperedRecord)
        // Another type's block fails authentication in either format.
        let other = HKQuantityTypeIdentifier.stepCount.rawValue
        #expect(Self.refusal { try ValueBlock(opening: old, type: other, cipher: cipher) } == .tamperedRecord)
        let sealed = try ValueBlock.seal(entries, type: type, cipher: cipher)
        #expect(Self.refusal { try ValueBlock(opening: sealed, type: other, cipher: cipher) } == .tamperedRecord)
    }

    @Test("A format-2 entry checks the UUID's last 8 bytes, the start and the end bit for bit")
    func binding() throws {
        let cipher = RecordCipher(masterKey: .init(size: .bits256))
        let type = HKQuantityTypeIdentifier.heartRate.rawValue
        let entry = ValueBlock.Entry(uuid: UUID(), start: 757_000_000, end: 757_000_000, valueBits: 1.2.bitPattern)
        let block = try ValueBlock(opening: ValueBlock.seal([entry, entry], type: type, cipher: cipher), type: type, cipher: cipher)
        let uuid = [UInt8](entry.uuid.databaseBlob)
        let bits = try uuid.withUnsafeBytes { try block.valueBits(at: 1, uuid: $0, start: entry.start, end: entry.end) }
        #expect(bits == 1.2.bitPattern)
        for position in 8..<16 {
            var altered = uuid
            altered[position] ^= 1
            altered.withUnsafeBytes { bytes in
                #expect(Self.refusal { try block.valueBits(at: 0, uuid: bytes, start: entry.start, end: entry.end) } == .tamperedRecord)
            }
        }
        uuid.withUnsafeBytes { bytes in
            for (start, end) in [(entry.start.nextUp, entry.end), (entry.start, entry.end + 1), (-0.0, 0.0), (0.0, -0.0)] {
                #expect(Self.refusal { try block.valueBits(at: 0, uuid: bytes, start: start, end: end) } == .tamperedRecord)
            }
            #expect(Self.refusal { try block.valueBits(at: 2, uuid: bytes, start: entry.start, end: entry.end) } == .corruptDatabase)
        }
    }

    /// Reseals every value block of the store in `folder` in format 1, as a store written before
    /// issue 36 holds them (same entries, same order).
    static func resealInFormat1(_ folder: TemporaryFolder) async throws {
        let database = try HealthDatabase.open(location: .file(folder.database), key: .keyFile(folder.keyFile), tombstoneRetention: 86_400)
        let cipher = database.cipher
        try await database.writer.write { db in
            for block in try Row.fetchAll(db, sql: "SELECT id, type, sealed FROM value_block") {
                let type: String = block["type"]
                let opened = try ValueBlock(opening: block["sealed"] as Data, type: type, cipher: cipher)
                let rows = try Row.fetchAll(db, sql: "SELECT uuid, start, \"end\", block_index FROM sample WHERE block_id = ? ORDER BY block_index",
                                            arguments: [block["id"] as Int64])
                #expect(rows.map { $0["block_index"] as Int } == Array(0..<opened.count))
                let entries = try rows.map { row in
                    let uuid: Data = row["uuid"]
                    let value = try uuid.withUnsafeBytes { try opened.valueBits(at: row["block_index"], uuid: $0, start: row["start"], end: row["end"]) }
                    return ValueBlock.Entry(uuid: try #require(UUID(databaseBlob: uuid)), start: row["start"], end: row["end"], valueBits: value)
                }
                let sealed = try cipher.sealBlock(ValueBlock.format1Plaintext(entries), context: ValueBlock.format1Context(type: type, count: entries.count))
                try db.execute(sql: "UPDATE value_block SET sealed = ? WHERE id = ?", arguments: [sealed, block["id"] as Int64])
            }
        }
    }

    @Test("A store whose blocks are format 1 gives the same statistics, and keeps them beside new format-2 blocks")
    func format1Store() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let first = ValueBlockTests.heartRates(5_000, seed: 21)
        let steps = ValueBlockTests.stepSamples(60, seed: 22)
        try await store.save(first + steps)
        let format2 = try await ValueBlockTests.figures(store)
        let sizes = try await Self.blockSizes(folder)
        #expect(sizes.allSatisfy { ($0 - 28) % 40 != 0 })
        try await Self.resealInFormat1(folder)
        let oldSizes = try await Self.blockSizes(folder)
        #expect(oldSizes.allSatisfy { ($0 - 28) % 40 == 0 })
        let newTotal: Int = sizes.reduce(0, +)
        let oldTotal: Int = oldSizes.reduce(0, +)
        #expect(newTotal * 100 < oldTotal * 55)
        let reopened = TestStores.owner(folder)
        // A source predicate makes statistics read the rows, not the rollups.
        let owner = HKQuery.predicateForObjects(from: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"))
        let options: HKStatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax]
        let fromFormat1 = try await reopened.runStatisticsQuery(ValueBlockTests.heartRate, predicate: owner, options: options)
        let fromFormat2 = try await store.runStatisticsQuery(ValueBlockTests.heartRate, predicate: owner, options: options)
        #expect(fromFormat1.averageQuantity() == fromFormat2.averageQuantity())
        #expect(fromFormat1.minimumQuantity() == fromFormat2.minimumQuantity())
        #expect(fromFormat1.maximumQuantity() == fromFormat2.maximumQuantity())
        #expect(try await ValueBlockTests.figures(reopened) == format2)
        // New saves beside the old blocks: both formats in one read, equal to the per-row figures.
        let second = ValueBlockTests.heartRates(300, fromMinute: 6_000, seed: 23)
        try await reopened.save(second)
        #expect(try await Self.blockSizes(folder).filter { ($0 - 28) % 40 != 0 }.count == 1)
        #expect(try await ValueBlockTests.figures(reopened) == (try await ValueBlockTests.perRowFigures(first + steps + second)))
    }

    static func blockSizes(_ folder: TemporaryFolder) async throws -> [Int] {
        let queue = try DatabaseQueue(path: folder.database.path)
        defer { try? queue.close() }
        return try await queue.read { db in try Int.fetchAll(db, sql: "SELECT length(sealed) FROM value_block ORDER BY id") }
    }
}
