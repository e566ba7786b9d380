import Foundation

/// The pure description of a HealthKit predicate: what `HKQuery.predicateFor…` builds and the
/// store translates to SQL. Value comparisons on sealed data are checked after decryption;
/// everything else (type, dates, UUIDs, sources, metadata equality through the keyed index,
/// workouts, correlations) is decided by SQL.
indirect enum PredicateNode: Sendable {
    case constant(Bool)
    case dates(start: Date?, end: Date?, options: HKQueryOptions)
    case uuids(Set<UUID>)
    case sources(Set<String>)
    case sourceRevisions([RevisionMatch])
    case devices([HKDevice])
    /// Objects whose device has one of these values for an `HKDevicePropertyKey…` property.
    case deviceProperty(key: String, values: Set<String>)
    case metadataExists(String)
    case metadataAllowed(key: String, values: [MetadataCodec.Value])
    case metadataCompare(key: String, operator: HKComparisonOperator, value: MetadataCodec.Value)
    case quantity(HKComparisonOperator, HKQuantity)
    case categoryValue(HKComparisonOperator, Int)
    case categoryValues(Set<Int>)
    case workoutActivity(HKWorkoutActivityType)
    case workoutDuration(HKComparisonOperator, TimeInterval)
    case workoutTotal(WorkoutTotalKind, HKComparisonOperator, HKQuantity)
    case fromWorkout(UUID)
    /// Effort samples related to a workout (and one of its activities, when given).
    case workoutEffort(workout: UUID, activity: UUID?)
    case noCorrelation
    /// Clinical records whose FHIR resource has this type and (when given) id.
    case fhirResource(type: String, identifier: String?)
    /// States of mind by kind, valence, label or association (decided after decryption).
    case stateOfMind(StateOfMindMatch)
    /// Electrocardiograms by classification or symptoms status (decided after decryption).
    case electrocardiogram(ElectrocardiogramMatch)
    /// Medication dose events and user annotated medications (decided after decryption).
    case medication(MedicationMatch)
    /// Workouts by their activities or statistics (decided after decryption).
    case workoutMatch(WorkoutMatch)
    case and([PredicateNode])
    case or([PredicateNode])
    case not(PredicateNode)

    struct RevisionMatch: Sendable, Hashable {
        var bundleIdentifier: String
        var version: String?
        var productType: String?
    }

    enum WorkoutTotalKind: Sendable {
        case energyBurned, distance, swimmingStrokeCount, flightsClimbed
    }

    /// Whether SQL alone decides this node, so no check after decryption is needed.
    var isExactInSQL: Bool {
        switch self {
        case .constant, .dates, .uuids, .sources, .sourceRevisions, .metadataExists, .workoutActivity, .fromWorkout, .workoutEffort,
             .noCorrelation:
            return true
        case .metadataAllowed(_, let values):
            return values.allSatisfy { $0.indexForm != nil }
        case .devices, .deviceProperty, .metadataCompare, .quantity, .categoryValue, .categoryValues, .workoutDuration, .workoutTotal, .fhirResource,
             .stateOfMind, .electrocardiogram, .medication, .workoutMatch:
            return false
        case .and(let nodes), .or(let nodes):
            return nodes.allSatisfy(\.isExactInSQL)
        case .not(let node):
            return node.isExactInSQL
        }
    }
}

/// The NSPredicate subclass HealthKit's predicate factories return here. Code can combine these
/// with `NSCompoundPredicate`; the store reads the tree back. Other predicates (block or
/// format predicates) cannot be translated and make a query fail with `unsupportedPredicate`.
final class HKQueryPredicate: NSPredicate {
    let node: PredicateNode

    init(_ node: PredicateNode) {
        self.node = node
        super.init(value: true)
    }

    required init?(coder: NSCoder) { nil }

    /// Reads any NSPredicate built from HealthKit factories and NSCompoundPredicate.
    static func node(from predicate: NSPredicate?) throws -> PredicateNode {
        guard let predicate else { return .constant(true) }
        if let ours = predicate as? HKQueryPredicate { return ours.node }
        if let compound = predicate as? NSCompoundPredicate {
            let children = try compound.subpredicates.map { try node(from: $0) }
            switch compound.compoundPredicateType {
            case .and: return .and(children)
            case .or: return .or(children)
            case .not:
                guard let first = children.first else { return .constant(true) }
                return .not(first)
            @unknown default:
                throw HealthStoreError(.unsupportedPredicate, "unknown compound predicate type")
            }
        }
        if predicate == NSPredicate(value: true) { return .constant(true) }
        if predicate == NSPredicate(value: false) { return .constant(false) }
        throw HealthStoreError(.unsupportedPredicate,
                               "only predicates from HKQuery.predicateFor… and NSCompoundPredicate can run against the store")
    }
}
