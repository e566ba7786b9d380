import Foundation

/// A sample type, the Swift type its samples have, and an optional predicate: the building
/// block of HealthKit's Swift-concurrency query descriptors (`HKSamplePredicate`).
public struct HKSamplePredicate<Sample: HKSample>: Sendable {
    /// The type to read.
    public let sampleType: HKSampleType
    private let box: UncheckedBox<NSPredicate?>

    /// The predicate that limits the samples.
    public var nsPredicate: NSPredicate? { box.value }

    init(sampleType: HKSampleType, predicate: NSPredicate?) {
        self.sampleType = sampleType
        self.box = UncheckedBox(predicate)
    }

    var queryDescriptor: HKQueryDescriptor { HKQueryDescriptor(sampleType: sampleType, predicate: nsPredicate) }
}

extension HKSamplePredicate where Sample == HKSample {
    /// Samples of any sample type.
    public static func sample(type: HKSampleType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKSample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKQuantitySample {
    /// Quantity samples of a type.
    public static func quantitySample(type: HKQuantityType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKQuantitySample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKCategorySample {
    /// Category samples of a type.
    public static func categorySample(type: HKCategoryType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKCategorySample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKCorrelation {
    /// Correlations of a type.
    public static func correlation(type: HKCorrelationType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKCorrelation> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKWorkout {
    /// Workouts.
    public static func workout(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKWorkout> {
        HKSamplePredicate(sampleType: HKWorkoutType(), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKClinicalRecord {
    /// Clinical records of a type.
    public static func clinicalRecord(type: HKClinicalType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKClinicalRecord> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKStateOfMind {
    /// States of mind, as HealthKit's `stateOfMind(_:)`.
    /// - Parameter predicate: Limits the states of mind, e.g. `HKQuery.predicateForStatesOfMind(with: .dailyMood)`.
    public static func stateOfMind(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKStateOfMind> {
        HKSamplePredicate(sampleType: HKStateOfMindType(), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKGAD7Assessment {
    /// GAD-7 assessments, as HealthKit's `gad7Assessment(_:)`.
    /// - Parameter predicate: Limits the assessments, e.g. by date; nil for all.
    public static func gad7Assessment(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKGAD7Assessment> {
        HKSamplePredicate(sampleType: HKScoredAssessmentType(.GAD7), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKPHQ9Assessment {
    /// PHQ-9 assessments, as HealthKit's `phq9Assessment(_:)`.
    /// - Parameter predicate: Limits the assessments, e.g. by date; nil for all.
    public static func phq9Assessment(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKPHQ9Assessment> {
        HKSamplePredicate(sampleType: HKScoredAssessmentType(.PHQ9), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKElectrocardiogram {
    /// Electrocardiograms, as HealthKit's `electrocardiogram(_:)`.
    /// - Parameter predicate: Limits the electrocardiograms, e.g. `HKQuery.predicateForSamples(withStart:end:)`; nil for all.
    public static func electrocardiogram(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKElectrocardiogram> {
        HKSamplePredicate(sampleType: HKElectrocardiogramType(), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKAudiogramSample {
    /// Audiograms, as HealthKit's `audiogram(_:)`.
    /// - Parameter predicate: Limits the audiograms, e.g. by date; nil for all.
    public static func audiogram(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKAudiogramSample> {
        HKSamplePredicate(sampleType: HKAudiogramSampleType(), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKHeartbeatSeriesSample {
    /// Heartbeat series, as HealthKit's `heartbeatSeries(_:)`.
    /// - Parameter predicate: Limits the series, e.g. by date; nil for all.
    public static func heartbeatSeries(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKHeartbeatSeriesSample> {
        HKSamplePredicate(sampleType: HKSeriesType.heartbeat(), predicate: predicate)
    }
}
