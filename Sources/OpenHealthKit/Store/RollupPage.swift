import Foundation

/// The format of a statistics rollup page: one UTC day (reference-date seconds
/// `[page × 86,400, (page + 1) × 86,400)`) of one quantity type, as 24 one-hour grains.
///
/// A grain holds the ``StatisticsGrainRollup`` of the samples lying wholly inside it, per
/// source and merged, or says that a sample crosses into or out of it (`crossed`): such a grain
/// is read raw. Samples longer than a day are never rolled up nor marked: statistics find them
/// through `sample_long_span` and read every grain they touch raw.
///
/// The page is sealed with AES-256-GCM under its own HKDF subkey (`RecordCipher.sealRollup`) and
/// authenticates ``context(type:page:)``: a label naming the format, the type identifier and
/// the page number, which are the row's clear key. A page moved to another type or day, or
/// altered, fails to open (`tamperedRecord`). Plaintext, little-endian: a format byte (1), the
/// grain count (1 byte), then per grain its index (1 byte), flags (1 byte: 1 crossed, 2 has
/// samples) and, with samples, the earliest start and latest end (`Double` bits), the source
/// count (2 bytes), per source its number (4 bytes) and ``StatisticsAccumulator``, then 0 when
/// the total is the only source's, or 1, the merge order (count, 2 bytes; source numbers, best
/// first; empty for discrete types) and the total's accumulator. An accumulator is its two
/// counts (8 bytes each), minimum, maximum, most recent start, end and value, and the end of
/// its union (8 bytes each), then six exact sums (sum, values, weighted, weight, instants,
/// union), each its non-finite part (8 bytes), its partial count (1 byte) and the partials.
struct RollupPage: Sendable, Equatable {
    /// The seconds of one grain.
    static let grainSeconds = 3_600.0
    /// The seconds of one page.
    static let pageSeconds = 86_400.0
    /// Grains per page.
    static let grainsPerPage = 24
    /// Samples whose clear times lie beyond this many seconds from the reference date are not
    /// rolled up (they are read raw, as long samples are).
    static let timeLimit = 1e11
    /// The SQL condition of a sample that is never rolled up: longer than a day, or beyond
    /// ``timeLimit``. The partial index `sample_long_span` has exactly this condition.
    static let longCondition = "(\"end\" - start > 86400.0 OR start < -1e11 OR \"end\" > 1e11)"

    private static let label = Array("ohk.rollup-page.v1".utf8)
    private static let format: UInt8 = 1

    /// One grain's content.
    struct Grain: Sendable, Equatable {
        /// The grain's position in its page, 0 through 23.
        var index: Int
        /// Whether a sample crosses one of its edges.
        var crossed = false
        /// The rollup of its samples.
        var rollup: StatisticsGrainRollup?
        /// For a merged total (cumulative types, several sources): the sources in the priority
        /// order it was merged with, best first.
        var order: [Int32] = []
    }

    /// The page number: its start is `page × 86,400` reference-date seconds.
    var page: Int64
    /// The grains that hold samples or are crossed, by index.
    var grains: [Grain]

    /// Whether a sample at these clear times is rolled up (else it is read raw).
    static func isRolledUp(start: Double, end: Double) -> Bool {
        end - start <= pageSeconds && start >= -timeLimit && end <= timeLimit
    }

    /// The number of the grain holding `t` (a zero-length sample at a grain's end belongs to
    /// the next grain), for |t| within ``timeLimit``.
    static func grain(containing t: Double) -> Int64 {
        var index = Int64((t / grainSeconds).rounded(.down))
        if Double(index) * grainSeconds > t {
            index -= 1
        } else if Double(index + 1) * grainSeconds <= t {
            index += 1
        }
        return index
    }

    /// The grains a sample touches: the grain of its start through the grain holding its end
    /// (exclusive of an end exactly on a grain edge).
    static func grains(start: Double, end: Double) -> ClosedRange<Int64> {
        let first = grain(containing: start)
        guard end > start else {
            return first...first
        }
        var last = grain(containing: end)
        if Double(last) * grainSeconds == end {
            last -= 1
        }
        return first...max(first, last)
    }

    /// The page holding grain `grain`.
    static func page(ofGrain grain: Int64) -> Int64 {
        grain >= 0 ? grain / Int64(grainsPerPage) : (grain - Int64(grainsPerPage - 1)) / Int64(grainsPerPage)
    }

    /// The additional authenticated data of a page: the format label, the type identifier's
    /// UTF-8 length (4 bytes, little-endian) and bytes, and the page number (8 bytes).
    static func context(type: String, page: Int64) -> Data {
        ValueBlock.typedContext(label: label, type: type, trailer: page)
    }

    /// Seals the page for the row `(type, page)`.
    func sealed(type: String, cipher: RecordCipher) throws -> Data {
        try cipher.sealRollup(encoded(), context: Self.context(type: type, page: page))
    }

    /// Opens the sealed page of the row `(type, page)`.
    /// - Throws: `HealthStoreError.tamperedRecord` when it fails authentication;
    ///   `.corruptDatabase` when it opens but does not parse.
    init(opening sealed: some DataProtocol, type: String, page: Int64, cipher: RecordCipher) throws {
        let plaintext = try cipher.openRollup(sealed, context: Self.context(type: type, page: page))
        try self.init(decoding: plaintext, page: page)
    }

    init(page: Int64, grains: [Grain]) {
        self.page = page
        self.grains = grains
    }

    // MARK: - Encoding

    func encoded() -> Data {
        var writer = RollupWriter()
        writer.byte(Self.format)
        writer.byte(UInt8(truncatingIfNeeded: grains.count))
        for grain in grains {
            writer.byte(UInt8(truncatingIfNeeded: grain.index))
            writer.byte((grain.crossed ? 1 : 0) | (grain.rollup != nil ? 2 : 0))
            guard let rollup = grain.rollup else { continue }
            writer.double(rollup.earliestStart)
            writer.double(rollup.latestEnd)
            writer.uint16(rollup.bySource.count)
            for entry in rollup.bySource {
                writer.int32(entry.source)
                writer.accumulator(entry.totals)
            }
            if rollup.bySource.count == 1, rollup.bySource.first?.totals == rollup.total {
                writer.byte(0)
            } else {
                writer.byte(1)
                writer.uint16(grain.order.count)
                for source in grain.order {
                    writer.int32(source)
                }
                writer.accumulator(rollup.total)
            }
        }
        return writer.data
    }

    private init(decoding data: Data, page: Int64) throws {
        var reader = RollupReader(data: data)
        guard try reader.byte() == Self.format else {
            throw HealthStoreError(.corruptDatabase, "a rollup page has an unknown format")
        }
        let count = Int(try reader.byte())
        var grains: [Grain] = []
        var previous = -1
        for _ in 0..<count {
            let index = Int(try reader.byte())
            guard index > previous, index < Self.grainsPerPage else {
                throw HealthStoreError(.corruptDatabase, "a rollup page lists its grains out of order")
            }
            previous = index
            let flags = try reader.byte()
            var grain = Grain(index: index, crossed: flags & 1 != 0)
            if flags & 2 != 0 {
                let start = page &* Int64(Self.grainsPerPage) &+ Int64(index)
                let grainStart = Double(start) * Self.grainSeconds
                let earliest = try reader.double()
                let latest = try reader.double()
                let sourceCount = try reader.uint16()
                var bySource: [StatisticsGrainRollup.Source] = []
                for _ in 0..<sourceCount {
                    let source = try reader.int32()
                    bySource.append(StatisticsGrainRollup.Source(source: source, totals: try reader.accumulator()))
                }
                let total: StatisticsAccumulator
                switch try reader.byte() {
                case 0:
                    guard bySource.count == 1, let only = bySource.first else {
                        throw HealthStoreError(.corruptDatabase, "a rollup grain has no total")
                    }
                    total = only.totals
                case 1:
                    let orderCount = try reader.uint16()
                    grain.order = try (0..<orderCount).map { _ in try reader.int32() }
                    total = try reader.accumulator()
                default:
                    throw HealthStoreError(.corruptDatabase, "a rollup grain has an unknown total")
                }
                guard earliest >= grainStart, latest <= grainStart + Self.grainSeconds, earliest <= latest else {
                    throw HealthStoreError(.corruptDatabase, "a rollup grain holds samples outside it")
                }
                grain.rollup = StatisticsGrainRollup(start: grainStart, end: grainStart + Self.grainSeconds, earliestStart: earliest,
                                                     latestEnd: latest, total: total, bySource: bySource)
            }
            grains.append(grain)
        }
        guard reader.isAtEnd else {
            throw HealthStoreError(.corruptDatabase, "a rollup page has trailing bytes")
        }
        self.page = page
        self.grains = grains
    }
}

/// Little-endian bytes of a rollup page.
private struct RollupWriter {
    var data = Data()

    mutating func byte(_ value: UInt8) {
        data.append(value)
    }

    mutating func uint16(_ value: Int) {
        withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func int32(_ value: Int32) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func int64(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func exactSum(_ sum: ExactSum) {
        double(sum.special)
        byte(UInt8(truncatingIfNeeded: sum.partials.count))
        for partial in sum.partials {
            double(partial)
        }
    }

    mutating func accumulator(_ totals: StatisticsAccumulator) {
        let closed = totals.closed()
        int64(closed.count)
        int64(closed.instantCount)
        for value in [closed.minimum, closed.maximum, closed.recentStart, closed.recentEnd, closed.recentValue, closed.coveredEnd] {
            double(value)
        }
        for sum in [closed.sum, closed.valueSum, closed.weightedSum, closed.weight, closed.instantSum, closed.covered] {
            exactSum(sum)
        }
    }
}

/// Reads what ``RollupWriter`` wrote; running out of bytes is `corruptDatabase`.
private struct RollupReader {
    let bytes: [UInt8]
    var offset = 0

    init(data: Data) {
        bytes = Array(data)
    }

    var isAtEnd: Bool { offset == bytes.count }

    private mutating func load<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard size <= bytes.count - offset else {
            throw HealthStoreError(.corruptDatabase, "a rollup page is truncated")
        }
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return T(littleEndian: value)
    }

    mutating func byte() throws -> UInt8 {
        try load(UInt8.self)
    }

    mutating func uint16() throws -> Int {
        Int(try load(UInt16.self))
    }

    mutating func int32() throws -> Int32 {
        try load(Int32.self)
    }

    mutating func double() throws -> Double {
        Double(bitPattern: try load(UInt64.self))
    }

    mutating func count() throws -> Int {
        let value = try load(Int64.self)
        guard value >= 0 else {
            throw HealthStoreError(.corruptDatabase, "a rollup page has a negative count")
        }
        return Int(value)
    }

    mutating func exactSum() throws -> ExactSum {
        let special = try double()
        let count = Int(try byte())
        var partials: [Double] = []
        partials.reserveCapacity(count)
        for _ in 0..<count {
            partials.append(try double())
        }
        return ExactSum(partials: partials, special: special)
    }

    mutating func accumulator() throws -> StatisticsAccumulator {
        var totals = StatisticsAccumulator()
        totals.count = try count()
        totals.instantCount = try count()
        totals.minimum = try double()
        totals.maximum = try double()
        totals.recentStart = try double()
        totals.recentEnd = try double()
        totals.recentValue = try double()
        totals.coveredEnd = try double()
        totals.segmentStart = totals.coveredEnd
        totals.sum = try exactSum()
        totals.valueSum = try exactSum()
        totals.weightedSum = try exactSum()
        totals.weight = try exactSum()
        totals.instantSum = try exactSum()
        totals.covered = try exactSum()
        return totals
    }
}
