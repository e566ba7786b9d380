import Foundation

/// How `predicateForSamples(withStart:end:options:)` treats a sample's dates
/// (HealthKit's `HKQueryOptions`).
///
/// With no options a sample matches when it overlaps the range: it ends at or after the start
/// and starts before the end. `strictStartDate` requires the sample to start at or after the
/// start; `strictEndDate` requires it to end at or before the end.
public struct HKQueryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The sample must start within the range.
    public static let strictStartDate = HKQueryOptions(rawValue: 1 << 0)
    /// The sample must end within the range.
    public static let strictEndDate = HKQueryOptions(rawValue: 1 << 1)
}

/// The comparison operators HealthKit's quantity, category, metadata and workout predicates
/// take. They have the names and raw values of `NSComparisonPredicate.Operator`, which
/// swift-corelibs-foundation marks unavailable, so `with: .greaterThan` compiles unchanged.
public enum HKComparisonOperator: UInt, Sendable, Hashable {
    case lessThan = 0
    case lessThanOrEqualTo = 1
    case greaterThan = 2
    case greaterThanOrEqualTo = 3
    case equalTo = 4
    case notEqualTo = 5

    func holds(_ result: ComparisonResult) -> Bool {
        switch self {
        case .lessThan: return result == .orderedAscending
        case .lessThanOrEqualTo: return result != .orderedDescending
        case .greaterThan: return result == .orderedDescending
        case .greaterThanOrEqualTo: return result != .orderedAscending
        case .equalTo: return result == .orderedSame
        case .notEqualTo: return result != .orderedSame
        }
    }

    func holds<T: Comparable>(_ lhs: T, _ rhs: T) -> Bool {
        holds(lhs < rhs ? .orderedAscending : (lhs == rhs ? .orderedSame : .orderedDescending))
    }
}

/// HealthKit's "no limit" value for sample and anchored queries.
public let HKObjectQueryNoLimit = 0
