import FhirBlocks
import Synchronization

/// A rate: a sustained number of requests per second, with a burst allowance.
public struct RateLimit: Sendable, Hashable {
    /// Requests per second, sustained.
    public var perSecond: Double
    /// Requests allowed at once after a quiet period.
    public var burst: Double

    /// Creates a rate (both at least 1).
    public init(perSecond: Double, burst: Double) {
        self.perSecond = max(1, perSecond)
        self.burst = max(1, burst)
    }
}

/// Token buckets keyed by a caller (an IP address, a csiGuid), read against the service's
/// clock so tests move time instead of waiting.
///
/// Memory is bounded: beyond ``maximumKeys`` buckets, those that have refilled completely
/// (callers quiet long enough to be back at their full burst, so forgetting them changes
/// nothing) are dropped, then the fullest ones: the callers that spent the most are the last
/// forgotten, so a flood of new keys cannot wash an abuser's empty bucket away.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64   // milliseconds
    }

    let limit: RateLimit
    let maximumKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(limit: RateLimit, maximumKeys: Int = 100_000) {
        self.limit = limit
        self.maximumKeys = max(1, maximumKeys)
    }

    /// Takes one token for `key` at `now`: nil when allowed, else the whole seconds until one
    /// is available.
    func take(_ key: String, now: Timestamp) -> Int? {
        let ms = now.millisecondsSince1970
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: limit.burst, updated: ms)
            let elapsed = Double(max(0, ms - bucket.updated)) / 1000
            bucket.tokens = min(limit.burst, bucket.tokens + elapsed * limit.perSecond)
            bucket.updated = ms
            let answer: Int?
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                answer = nil
            } else {
                answer = max(1, Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up)))
            }
            if buckets[key] == nil, buckets.count >= maximumKeys { prune(&buckets, now: ms) }
            buckets[key] = bucket
            return answer
        }
    }

    /// The number of buckets kept.
    var count: Int { buckets.withLock { $0.count } }

    private func prune(_ buckets: inout [String: Bucket], now: Int64) {
        func tokens(_ bucket: Bucket) -> Double {
            min(limit.burst, bucket.tokens + Double(max(0, now - bucket.updated)) / 1000 * limit.perSecond)
        }
        buckets = buckets.filter { tokens($0.value) < limit.burst }
        let target = maximumKeys * 3 / 4
        if buckets.count > target {
            let keep = buckets.sorted { tokens($0.value) < tokens($1.value) }.prefix(target)
            buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }
}
