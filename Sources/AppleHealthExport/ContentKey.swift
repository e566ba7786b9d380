/// The first 128 bits of an element's content digest: a compact key for sets.
struct ContentKey: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    init(_ digest: [UInt8]) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 where index < digest.count { high = high << 8 | UInt64(digest[index]) }
        for index in 8..<16 where index < digest.count { low = low << 8 | UInt64(digest[index]) }
        self.high = high
        self.low = low
    }
}
