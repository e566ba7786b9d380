import Foundation

/// A latitude or longitude in degrees (CoreLocation's `CLLocationDegrees`).
public typealias CLLocationDegrees = Double
/// A distance in meters (CoreLocation's `CLLocationDistance`).
public typealias CLLocationDistance = Double
/// An accuracy in meters (CoreLocation's `CLLocationAccuracy`); negative means invalid.
public typealias CLLocationAccuracy = Double
/// A speed in meters per second (CoreLocation's `CLLocationSpeed`); negative means invalid.
public typealias CLLocationSpeed = Double
/// The accuracy of a speed in meters per second (CoreLocation's `CLLocationSpeedAccuracy`).
public typealias CLLocationSpeedAccuracy = Double
/// A direction in degrees from true north (CoreLocation's `CLLocationDirection`); negative means invalid.
public typealias CLLocationDirection = Double
/// The accuracy of a direction in degrees (CoreLocation's `CLLocationDirectionAccuracy`).
public typealias CLLocationDirectionAccuracy = Double

/// A geographical coordinate (CoreLocation's `CLLocationCoordinate2D`), given here because
/// CoreLocation does not exist on Linux: HealthKit route code compiles by importing
/// OpenHealthKit instead of HealthKit and CoreLocation.
public struct CLLocationCoordinate2D: Sendable, Equatable {
    /// The latitude in degrees, from -90 to 90.
    public var latitude: CLLocationDegrees
    /// The longitude in degrees, from -180 to 180.
    public var longitude: CLLocationDegrees

    /// The coordinate at latitude and longitude 0.
    public init() {
        self.init(latitude: 0, longitude: 0)
    }

    /// Creates a coordinate.
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// An invalid coordinate (CoreLocation's `kCLLocationCoordinate2DInvalid`).
public let kCLLocationCoordinate2DInvalid = CLLocationCoordinate2D(latitude: -180, longitude: -180)

/// Whether a coordinate is a place on Earth: finite, latitude within ±90° and longitude within ±180°
/// (CoreLocation's `CLLocationCoordinate2DIsValid`).
public func CLLocationCoordinate2DIsValid(_ coordinate: CLLocationCoordinate2D) -> Bool {
    coordinate.latitude.isFinite && coordinate.longitude.isFinite && abs(coordinate.latitude) <= 90 && abs(coordinate.longitude) <= 180
}

/// Creates a coordinate (CoreLocation's `CLLocationCoordinate2DMake`).
public func CLLocationCoordinate2DMake(_ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees) -> CLLocationCoordinate2D {
    CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}
