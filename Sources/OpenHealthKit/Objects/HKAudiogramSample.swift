import Foundation

/// The conduction type of a hearing test (HealthKit's `HKAudiogramConductionType`).
public enum HKAudiogramConductionType: Int, Sendable, Hashable {
    /// Air conduction.
    case air = 0
}

/// The ear a hearing test was of (HealthKit's `HKAudiogramSensitivityTestSide`).
public enum HKAudiogramSensitivityTestSide: Int, Sendable, Hashable {
    /// The left ear.
    case left = 0
    /// The right ear.
    case right = 1
}

/// The range a sensitivity may have been clamped to (HealthKit's `HKAudiogramSensitivityPointClampingRange`).
public final class HKAudiogramSensitivityPointClampingRange: NSObject, @unchecked Sendable {
    /// The lower bound, in dBHL, if any.
    public let lowerBound: HKQuantity?
    /// The upper bound, in dBHL, if any.
    public let upperBound: HKQuantity?

    /// Creates a clamping range, as HealthKit's `init(lowerBound:upperBound:)`.
    /// - Parameters:
    ///   - lowerBound: The lower bound in dBHL, or nil.
    ///   - upperBound: The upper bound in dBHL, or nil.
    /// - Throws: `HKError.errorInvalidArgument` when both are nil, a bound is not finite, or the lower one exceeds the upper one.
    public convenience init(lowerBound: NSNumber?, upperBound: NSNumber?) throws {
        try self.init(lower: lowerBound?.doubleValue, upper: upperBound?.doubleValue)
    }

    init(lower: Double?, upper: Double?) throws {
        guard lower != nil || upper != nil else {
            throw HKError(.errorInvalidArgument, "a clamping range needs a lower or an upper bound")
        }
        if let lower, !lower.isFinite { throw HKError(.errorInvalidArgument, "a clamping range's lower bound must be finite") }
        if let upper, !upper.isFinite { throw HKError(.errorInvalidArgument, "a clamping range's upper bound must be finite") }
        if let lower, let upper, lower > upper {
            throw HKError(.errorInvalidArgument, "a clamping range's lower bound exceeds its upper bound")
        }
        lowerBound = lower.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0) }
        upperBound = upper.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0) }
    }
}

/// One ear's result at one frequency (HealthKit's `HKAudiogramSensitivityTest`).
public final class HKAudiogramSensitivityTest: NSObject, @unchecked Sendable {
    /// The sensitivity, in dBHL.
    public let sensitivity: HKQuantity
    /// The conduction type.
    public let type: HKAudiogramConductionType
    /// Whether the test was masked.
    public let masked: Bool
    /// The ear tested.
    public let side: HKAudiogramSensitivityTestSide
    /// The range the sensitivity was clamped to, if it was.
    public let clampingRange: HKAudiogramSensitivityPointClampingRange?

    /// Creates a test result, as HealthKit's `init(sensitivity:type:masked:side:clampingRange:)`.
    /// - Parameters:
    ///   - sensitivity: The sensitivity, in a unit compatible with `decibelHearingLevel()`.
    ///   - type: The conduction type.
    ///   - masked: Whether the test was masked.
    ///   - side: The ear tested.
    ///   - clampingRange: The range the sensitivity was clamped to, or nil.
    /// - Throws: `HKError.errorInvalidArgument` for a sensitivity not in dBHL or not finite.
    public init(sensitivity: HKQuantity, type: HKAudiogramConductionType, masked: Bool, side: HKAudiogramSensitivityTestSide,
                clampingRange: HKAudiogramSensitivityPointClampingRange?) throws {
        guard sensitivity.is(compatibleWith: .decibelHearingLevel()),
              let value = try? sensitivity.value(in: .decibelHearingLevel()), value.isFinite else {
            throw HKError(.errorInvalidArgument, "a sensitivity must be a finite quantity in dBHL")
        }
        self.sensitivity = sensitivity
        self.type = type
        self.masked = masked
        self.side = side
        self.clampingRange = clampingRange
    }
}

/// A hearing sensitivity reading at one frequency (HealthKit's `HKAudiogramSensitivityPoint`).
public final class HKAudiogramSensitivityPoint: NSObject, @unchecked Sendable {
    /// The frequency tested, in hertz.
    public let frequency: HKQuantity
    /// The test results at this frequency (iOS 18.1's form).
    public let tests: [HKAudiogramSensitivityTest]

    /// The sensitivity of the left ear: its unmasked air-conduction test (deprecated in HealthKit
    /// since iOS 18.1 in favour of ``tests``).
    public var leftEarSensitivity: HKQuantity? { unmaskedAir(.left) }
    /// The sensitivity of the right ear: its unmasked air-conduction test (deprecated in HealthKit
    /// since iOS 18.1 in favour of ``tests``).
    public var rightEarSensitivity: HKQuantity? { unmaskedAir(.right) }

    private func unmaskedAir(_ side: HKAudiogramSensitivityTestSide) -> HKQuantity? {
        (tests.first { $0.side == side && $0.type == .air && !$0.masked } ?? tests.first { $0.side == side })?.sensitivity
    }

    /// Creates a sensitivity point from each ear's sensitivity, as HealthKit's
    /// `init(frequency:leftEarSensitivity:rightEarSensitivity:)` (deprecated since iOS 18.1).
    /// - Parameters:
    ///   - frequency: The frequency tested, in a unit compatible with `hertz()`.
    ///   - leftEarSensitivity: The left ear's sensitivity in dBHL, or nil.
    ///   - rightEarSensitivity: The right ear's sensitivity in dBHL, or nil.
    /// - Throws: `HKError.errorInvalidArgument` for a frequency or sensitivity with the wrong unit.
    public convenience init(frequency: HKQuantity, leftEarSensitivity: HKQuantity?, rightEarSensitivity: HKQuantity?) throws {
        var tests: [HKAudiogramSensitivityTest] = []
        if let leftEarSensitivity {
            tests.append(try HKAudiogramSensitivityTest(sensitivity: leftEarSensitivity, type: .air, masked: false, side: .left, clampingRange: nil))
        }
        if let rightEarSensitivity {
            tests.append(try HKAudiogramSensitivityTest(sensitivity: rightEarSensitivity, type: .air, masked: false, side: .right, clampingRange: nil))
        }
        try self.init(frequency: frequency, tests: tests)
    }

    /// Creates a sensitivity point from its test results, as HealthKit's `init(frequency:tests:)`.
    /// - Parameters:
    ///   - frequency: The frequency tested, in a unit compatible with `hertz()`.
    ///   - tests: The results at this frequency.
    /// - Throws: `HKError.errorInvalidArgument` for a frequency that is not a finite positive
    ///   quantity in hertz.
    public init(frequency: HKQuantity, tests: [HKAudiogramSensitivityTest]) throws {
        guard frequency.is(compatibleWith: .hertz()), let hertz = try? frequency.value(in: .hertz()), hertz.isFinite, hertz > 0 else {
            throw HKError(.errorInvalidArgument, "a sensitivity point's frequency must be a finite positive quantity in hertz")
        }
        self.frequency = frequency
        self.tests = tests
    }
}

/// An audiogram: the results of a hearing test (HealthKit's `HKAudiogramSample`).
public final class HKAudiogramSample: HKSample, @unchecked Sendable {
    /// The sensitivity points, by ascending frequency.
    public let sensitivityPoints: [HKAudiogramSensitivityPoint]

    /// The most points an audiogram holds.
    static let maximumPoints = 30

    /// Creates an audiogram, as HealthKit's `init(sensitivityPoints:start:end:metadata:)`
    /// (deprecated since iOS 18.1).
    /// - Parameters:
    ///   - sensitivityPoints: The points, frequencies unique and ascending, at most 30.
    ///   - startDate: When the hearing test started.
    ///   - endDate: When it ended.
    ///   - metadata: Its metadata.
    public convenience init(sensitivityPoints: [HKAudiogramSensitivityPoint], start startDate: Date, end endDate: Date,
                            metadata: [String: Any]?) {
        self.init(sensitivityPoints: sensitivityPoints, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    /// Creates an audiogram, as HealthKit's `init(sensitivityPoints:start:end:device:metadata:)`.
    /// The store refuses to save one whose frequencies are not unique and ascending or that has
    /// more than 30 points.
    /// - Parameters:
    ///   - sensitivityPoints: The points, frequencies unique and ascending, at most 30.
    ///   - startDate: When the hearing test started.
    ///   - endDate: When it ended.
    ///   - device: The device that generated the sample.
    ///   - metadata: Its metadata.
    public convenience init(sensitivityPoints: [HKAudiogramSensitivityPoint], start startDate: Date, end endDate: Date,
                            device: HKDevice?, metadata: [String: Any]?) {
        self.init(points: sensitivityPoints, start: startDate, end: endDate, uuid: UUID(), sourceRevision: nil, device: device,
                  metadata: metadata)
    }

    init(points: [HKAudiogramSensitivityPoint], start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision?,
         device: HKDevice?, metadata: [String: Any]?) {
        self.sensitivityPoints = points
        super.init(sampleType: HKAudiogramSampleType(), startDate: start, endDate: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }
}

/// An audiogram's points in a sealed payload's extra section (JSON), frequencies in Hz and
/// sensitivities in dBHL.
struct AudiogramDetails: Codable {
    struct Test: Codable {
        var dBHL: Double
        var type: Int
        var masked: Bool
        var side: Int
        var lower: Double?
        var upper: Double?
    }

    struct Point: Codable {
        var hertz: Double
        var tests: [Test]
    }

    var points: [Point]

    /// Checks the sample as HealthKit does and converts it.
    init(_ sample: HKAudiogramSample) throws {
        guard sample.sensitivityPoints.count <= HKAudiogramSample.maximumPoints else {
            throw HKError(.errorInvalidArgument, "an audiogram holds at most \(HKAudiogramSample.maximumPoints) sensitivity points")
        }
        var previous = -Double.infinity
        points = try sample.sensitivityPoints.map { point in
            let hertz = try point.frequency.value(in: .hertz())
            guard hertz > previous else {
                throw HKError(.errorInvalidArgument, "an audiogram's frequencies must be unique and ascending")
            }
            previous = hertz
            return Point(hertz: hertz, tests: try point.tests.map { test in
                Test(dBHL: try test.sensitivity.value(in: .decibelHearingLevel()), type: test.type.rawValue, masked: test.masked,
                     side: test.side.rawValue,
                     lower: try test.clampingRange?.lowerBound?.value(in: .decibelHearingLevel()),
                     upper: try test.clampingRange?.upperBound?.value(in: .decibelHearingLevel()))
            })
        }
    }

    func makePoints() throws -> [HKAudiogramSensitivityPoint] {
        try points.map { point in
            let tests = try point.tests.map { test in
                guard let type = HKAudiogramConductionType(rawValue: test.type), let side = HKAudiogramSensitivityTestSide(rawValue: test.side) else {
                    throw HealthStoreError(.corruptDatabase, "a sealed audiogram has an unknown test")
                }
                let range = test.lower == nil && test.upper == nil ? nil : try HKAudiogramSensitivityPointClampingRange(lower: test.lower, upper: test.upper)
                return try HKAudiogramSensitivityTest(sensitivity: HKQuantity(unit: .decibelHearingLevel(), doubleValue: test.dBHL), type: type,
                                                      masked: test.masked, side: side, clampingRange: range)
            }
            return try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertz(), doubleValue: point.hertz), tests: tests)
        }
    }
}
