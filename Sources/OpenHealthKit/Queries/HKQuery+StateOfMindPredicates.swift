import Foundation

/// One state-of-mind condition of a predicate, decided on the decrypted sample (kind, valence,
/// labels and associations are sealed).
enum StateOfMindMatch: Sendable {
    case kind(HKStateOfMind.Kind)
    case valence(HKComparisonOperator, Double)
    case label(HKStateOfMind.Label)
    case association(HKStateOfMind.Association)

    /// Whether `mind` meets the condition.
    func matches(_ mind: HKStateOfMind) -> Bool {
        switch self {
        case .kind(let kind): return mind.kind == kind
        case .valence(let op, let valence): return op.holds(mind.valence, valence)
        case .label(let label): return mind.labels.contains(label)
        case .association(let association): return mind.associations.contains(association)
        }
    }
}

extension HKQuery {
    /// Matches states of mind whose valence compares with `valence` by `operatorType`, as
    /// HealthKit's `predicateForStatesOfMind(withValence:operatorType:)`.
    /// - Parameters:
    ///   - valence: The valence to compare with, from −1 to +1.
    ///   - operatorType: How the sample's valence must compare with `valence`.
    public class func predicateForStatesOfMind(withValence valence: Double, operatorType: HKComparisonOperator) -> NSPredicate {
        HKQueryPredicate(.stateOfMind(.valence(operatorType, valence)))
    }

    /// Matches states of mind of one kind, as HealthKit's `predicateForStatesOfMind(with:)`.
    /// - Parameter kind: A momentary emotion or a daily mood.
    public class func predicateForStatesOfMind(with kind: HKStateOfMind.Kind) -> NSPredicate {
        HKQueryPredicate(.stateOfMind(.kind(kind)))
    }

    /// Matches states of mind that carry a label, as HealthKit's `predicateForStatesOfMind(with:)`.
    /// - Parameter label: The label the sample must have among its labels.
    public class func predicateForStatesOfMind(with label: HKStateOfMind.Label) -> NSPredicate {
        HKQueryPredicate(.stateOfMind(.label(label)))
    }

    /// Matches states of mind associated with a facet of life, as HealthKit's
    /// `predicateForStatesOfMind(with:)`.
    /// - Parameter association: The association the sample must have among its associations.
    public class func predicateForStatesOfMind(with association: HKStateOfMind.Association) -> NSPredicate {
        HKQueryPredicate(.stateOfMind(.association(association)))
    }
}
