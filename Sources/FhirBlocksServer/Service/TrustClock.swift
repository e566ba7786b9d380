import FhirBlocks
import Foundation

/// Where the service reads the time: the system clock, or a fixed or scripted clock in tests.
public struct TrustClock: Sendable {
    private let read: @Sendable () -> Timestamp

    /// A clock reading `read`.
    public init(_ read: @escaping @Sendable () -> Timestamp) {
        self.read = read
    }

    /// The current instant.
    public func now() -> Timestamp { read() }

    /// The system clock.
    public static let system = TrustClock {
        Timestamp(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
