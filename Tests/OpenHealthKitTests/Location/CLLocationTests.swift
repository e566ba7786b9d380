import Foundation
import Testing
@testable import OpenHealthKit

@Suite("CLLocation: CoreLocation's location value on Linux")
struct CLLocationTests {
    @Test("The short initializer marks altitude, course and speed unknown, as CoreLocation does")
    func defaults() {
        let location = CLLocation(latitude: 47.37, longitude: 8.54)
        #expect(location.coordinate == CLLocationCoordinate2D(latitude: 47.37, longitude: 8.54))
        #expect(location.verticalAccuracy < 0 && location.course < 0 && location.speed < 0 && location.speedAccuracy < 0)
        #expect(location.horizontalAccuracy == 0)
    }

    @Test("Distances: one degree of latitude is about 111.2 km; a point is 0 m from itself; the distance is symmetric")
    func distance() {
        let zurich = CLLocation(latitude: 47.3769, longitude: 8.5417)
        let north = CLLocation(latitude: 48.3769, longitude: 8.5417)
        #expect(abs(zurich.distance(from: north) - 111_195) < 1)
        #expect(zurich.distance(from: zurich) == 0)
        let paris = CLLocation(latitude: 48.8566, longitude: 2.3522)
        #expect(abs(zurich.distance(from: paris) - paris.distance(from: zurich)) < 1e-6)
        #expect(abs(zurich.distance(from: paris) - 489_000) < 5_000)
    }

    @Test("Coordinates are valid only on Earth")
    func validity() {
        #expect(CLLocationCoordinate2DIsValid(CLLocationCoordinate2DMake(90, 180)))
        #expect(!CLLocationCoordinate2DIsValid(kCLLocationCoordinate2DInvalid))
        #expect(!CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: .nan, longitude: 0)))
        #expect(!CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: 0, longitude: 180.01)))
    }
}
