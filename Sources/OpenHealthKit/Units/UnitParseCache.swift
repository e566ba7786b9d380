import Foundation

/// A thread-safe cache of parsed units keyed by the exact input string.
///
/// Only successful parses are stored, and at most ``capacity`` entries: when full, the cache
/// starts over, which keeps memory bounded when clients send many distinct strings (e.g.
/// arbitrary molar masses) while the units in everyday use are cached again at once.
final class UnitParseCache: @unchecked Sendable {
    /// The process-wide cache used by ``HKUnit/parse(_:)``.
    static let shared = UnitParseCache(capacity: 2048)

    /// Maximum number of entries.
    let capacity: Int

    private let lock = NSLock()
    private var units: [String: HKUnit] = [:]

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The cached unit for `string`, if any.
    func unit(for string: String) -> HKUnit? {
        lock.lock()
        defer { lock.unlock() }
        return units[string]
    }

    /// Stores `unit` for `string`, emptying the cache first when it is full.
    func store(_ unit: HKUnit, for string: String) {
        lock.lock()
        defer { lock.unlock() }
        if units.count >= capacity {
            units.removeAll(keepingCapacity: true)
        }
        units[string] = unit
    }

    /// The number of cached entries.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return units.count
    }
}
