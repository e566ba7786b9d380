import Foundation

/// Kinds of low cardio fitness event.
public enum HKCategoryValueLowCardioFitnessEvent: Int, Sendable, Codable, CaseIterable {
    /// A VO2 max measurement fell into the low fitness classification.
    case lowFitness = 1
}
