import Foundation

/// Kinds of audio exposure event, under the iOS 13 name.
@available(*, deprecated, renamed: "HKCategoryValueEnvironmentalAudioExposureEvent")
public enum HKCategoryValueAudioExposureEvent: Int, Sendable, Codable, CaseIterable {
    /// The user was in a loud environment.
    case loudEnvironment = 1
}
