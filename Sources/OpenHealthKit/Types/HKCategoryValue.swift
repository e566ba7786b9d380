import Foundation

/// The value for category types that carry no specific value, such as mindful sessions or high heart rate events.
public enum HKCategoryValue: Int, Sendable, Codable, CaseIterable {
    /// The only value such types accept.
    case notApplicable = 0
}
