import Foundation

/// Kinds of headphone audio exposure event.
public enum HKCategoryValueHeadphoneAudioExposureEvent: Int, Sendable, Codable, CaseIterable {
    /// The user reached the seven-day headphone exposure limit.
    case sevenDayLimit = 1
}
