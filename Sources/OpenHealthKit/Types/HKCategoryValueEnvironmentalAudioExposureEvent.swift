import Foundation

/// Kinds of environmental audio exposure event.
public enum HKCategoryValueEnvironmentalAudioExposureEvent: Int, Sendable, Codable, CaseIterable {
    /// The user was in a loud environment for a short time.
    case momentaryLimit = 1
}
