import Foundation

/// A location with its accuracy, altitude, course, speed and time (CoreLocation's `CLLocation`),
/// the element of a workout route (``HKWorkoutRoute``).
///
/// CoreLocation does not exist on Linux; this class has CoreLocation's initializers and
/// properties, so HealthKit route code compiles by importing OpenHealthKit. As in CoreLocation,
/// a negative accuracy, course or speed means the value is not known.
public final class CLLocation: NSObject, @unchecked Sendable {
    /// The latitude and longitude.
    public let coordinate: CLLocationCoordinate2D
    /// The altitude above mean sea level in meters.
    public let altitude: CLLocationDistance
    /// The altitude above the WGS 84 ellipsoid in meters (here the same as ``altitude``).
    public var ellipsoidalAltitude: CLLocationDistance { altitude }
    /// The radius of uncertainty of ``coordinate`` in meters; negative when the coordinate is invalid.
    public let horizontalAccuracy: CLLocationAccuracy
    /// The uncertainty of ``altitude`` in meters; zero or negative when the altitude is invalid.
    public let verticalAccuracy: CLLocationAccuracy
    /// The direction of travel in degrees from true north; negative when unknown.
    public let course: CLLocationDirection
    /// The accuracy of ``course`` in degrees; negative when unknown.
    public let courseAccuracy: CLLocationDirectionAccuracy
    /// The speed in meters per second; negative when unknown.
    public let speed: CLLocationSpeed
    /// The accuracy of ``speed`` in meters per second; negative when unknown.
    public let speedAccuracy: CLLocationSpeedAccuracy
    /// When the location was determined.
    public let timestamp: Date

    /// Creates a location at a coordinate, now, with no altitude, course or speed
    /// (CoreLocation's `init(latitude:longitude:)`).
    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0,
                  horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: Date())
    }

    /// Creates a location without course or speed
    /// (CoreLocation's `init(coordinate:altitude:horizontalAccuracy:verticalAccuracy:timestamp:)`).
    public convenience init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                            verticalAccuracy vAccuracy: CLLocationAccuracy, timestamp: Date) {
        self.init(coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
                  course: -1, courseAccuracy: -1, speed: -1, speedAccuracy: -1, timestamp: timestamp)
    }

    /// Creates a location with course and speed
    /// (CoreLocation's `init(coordinate:altitude:horizontalAccuracy:verticalAccuracy:course:speed:timestamp:)`).
    public convenience init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                            verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed,
                            timestamp: Date) {
        self.init(coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
                  course: course, courseAccuracy: -1, speed: speed, speedAccuracy: -1, timestamp: timestamp)
    }

    /// Creates a location with course, speed and their accuracies
    /// (CoreLocation's `init(coordinate:altitude:horizontalAccuracy:verticalAccuracy:course:courseAccuracy:speed:speedAccuracy:timestamp:)`).
    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection, courseAccuracy: CLLocationDirectionAccuracy,
                speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = hAccuracy
        self.verticalAccuracy = vAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
        super.init()
    }

    /// The great-circle distance in meters to another location (haversine on a sphere of
    /// Earth's mean radius; CoreLocation's `distance(from:)`).
    public func distance(from location: CLLocation) -> CLLocationDistance {
        let radius = 6_371_008.8
        let lat1 = coordinate.latitude * .pi / 180, lat2 = location.coordinate.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (location.coordinate.longitude - coordinate.longitude) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLLocation else { return false }
        return other.coordinate == coordinate && other.altitude == altitude && other.horizontalAccuracy == horizontalAccuracy
            && other.verticalAccuracy == verticalAccuracy && other.course == course && other.courseAccuracy == courseAccuracy
            && other.speed == speed && other.speedAccuracy == speedAccuracy && other.timestamp == timestamp
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(coordinate.latitude)
        hasher.combine(coordinate.longitude)
        hasher.combine(timestamp)
        return hasher.finalize()
    }

    public override var description: String {
        "<\(coordinate.latitude),\(coordinate.longitude)> +/- \(horizontalAccuracy)m @ \(timestamp)"
    }
}
