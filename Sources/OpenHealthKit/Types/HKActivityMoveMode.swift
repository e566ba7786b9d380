import Foundation

/// What the Activity move ring measures.
public enum HKActivityMoveMode: Int, Sendable, Codable, CaseIterable {
    /// Active energy burned.
    case activeEnergy = 1

    /// Apple Move Time.
    case appleMoveTime = 2
}
