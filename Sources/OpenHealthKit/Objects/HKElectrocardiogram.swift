import Foundation

/// An electrocardiogram (HealthKit's `HKElectrocardiogram`): its classification, symptoms,
/// average heart rate and sampling frequency; the voltages of each lead are read with
/// ``HKElectrocardiogramQuery``.
///
/// Apps read electrocardiograms and never save them, as in HealthKit: they come from the store's
/// owner (the Apple Health import of an export's `electrocardiograms/*.csv`), who creates them
/// with ``init(start:end:classification:symptomsStatus:averageHeartRate:samplingFrequency:microvolts:device:metadata:)``.
public final class HKElectrocardiogram: HKSample, @unchecked Sendable {
    /// Classifications returned by Apple Watch's ECG algorithm (HealthKit's `HKElectrocardiogram.Classification`).
    public enum Classification: Int, Sendable, Hashable {
        /// The classification is not set.
        case notSet = 0
        /// The sample exhibits no signs of atrial fibrillation.
        case sinusRhythm = 1
        /// The sample exhibits signs of atrial fibrillation.
        case atrialFibrillation = 2
        /// An unclassifiable sample caused by a heart rate below 50 bpm.
        case inconclusiveLowHeartRate = 3
        /// An unclassifiable sample caused by a rapid heart rate.
        case inconclusiveHighHeartRate = 4
        /// An unclassifiable sample caused by an unclear signal.
        case inconclusivePoorReading = 5
        /// An unclassifiable sample for another reason.
        case inconclusiveOther = 6
        /// A classification the algorithm did not recognize.
        case unrecognized = 100
    }

    /// Whether the person entered symptoms when recording (HealthKit's `HKElectrocardiogram.SymptomsStatus`).
    public enum SymptomsStatus: Int, Sendable, Hashable {
        /// Not set.
        case notSet = 0
        /// The person reported no symptoms.
        case none = 1
        /// The person reported symptoms (kept as category samples).
        case present = 2
    }

    /// The lead a voltage was recorded with (HealthKit's `HKElectrocardiogram.Lead`).
    public enum Lead: Int, Sendable, Hashable {
        /// Apple Watch Series 4 or later: similar to a Lead I ECG.
        case appleWatchSimilarToLeadI = 1
    }

    /// The voltage of every lead at one point in time (HealthKit's `HKElectrocardiogram.VoltageMeasurement`).
    public final class VoltageMeasurement: NSObject, @unchecked Sendable {
        /// The time of the measurement relative to the sample's start.
        public let timeSinceSampleStart: TimeInterval
        private let microvolts: [Lead: Float]

        init(timeSinceSampleStart: TimeInterval, microvolts: [Lead: Float]) {
            self.timeSinceSampleStart = timeSinceSampleStart
            self.microvolts = microvolts
        }

        /// Returns the voltage for a lead, in volt units (expressed in µV), or nil when the
        /// electrocardiogram has no such lead.
        /// - Parameter lead: The lead whose voltage you want to read.
        public func quantity(for lead: HKElectrocardiogram.Lead) -> HKQuantity? {
            microvolts[lead].map { HKQuantity(unit: .voltUnit(with: .micro), doubleValue: Double($0)) }
        }
    }

    /// The number of voltage measurements (per lead).
    public let numberOfVoltageMeasurements: Int
    /// The frequency the voltages were sampled at (`hertz()`), if known.
    public let samplingFrequency: HKQuantity?
    /// The classification of the recording.
    public let classification: Classification
    /// The average heart rate during the recording (`count/min`), if known.
    public let averageHeartRate: HKQuantity?
    /// Whether the person entered symptoms.
    public let symptomsStatus: SymptomsStatus

    /// The voltages, packed; empty on a sample read back without them.
    let voltages: ElectrocardiogramVoltages

    /// Creates an electrocardiogram to save as the store's owner (OpenHealthKit API: HealthKit
    /// has no public initializer, and apps cannot save electrocardiograms).
    /// - Parameters:
    ///   - start: When the recording started.
    ///   - end: When it ended.
    ///   - classification: The algorithm's classification.
    ///   - symptomsStatus: Whether the person entered symptoms.
    ///   - averageHeartRate: The average heart rate, in a unit compatible with `count/min`.
    ///   - samplingFrequency: The sampling frequency, in a unit compatible with `hertz()`.
    ///   - microvolts: Every voltage of every lead, in µV, in time order; every lead has the same number.
    ///   - device: The device that recorded it.
    ///   - metadata: Its metadata.
    /// - Throws: `HKError.errorInvalidArgument` when leads have different numbers of voltages, a
    ///   voltage is not finite, or a quantity has the wrong unit.
    public convenience init(start: Date, end: Date, classification: Classification, symptomsStatus: SymptomsStatus,
                            averageHeartRate: HKQuantity?, samplingFrequency: HKQuantity?,
                            microvolts: [Lead: [Float]], device: HKDevice?, metadata: [String: Any]?) throws {
        let voltages = try ElectrocardiogramVoltages(microvolts)
        if let averageHeartRate, !averageHeartRate.is(compatibleWith: .count().unitDivided(by: .minute())) {
            throw HKError(.errorInvalidArgument, "an electrocardiogram's average heart rate must be in count/min")
        }
        if let samplingFrequency, !samplingFrequency.is(compatibleWith: .hertz()) {
            throw HKError(.errorInvalidArgument, "an electrocardiogram's sampling frequency must be in hertz")
        }
        self.init(start: start, end: end, classification: classification, symptomsStatus: symptomsStatus,
                  averageHeartRate: averageHeartRate, samplingFrequency: samplingFrequency, voltages: voltages,
                  uuid: UUID(), sourceRevision: nil, device: device, metadata: metadata)
    }

    init(start: Date, end: Date, classification: Classification, symptomsStatus: SymptomsStatus,
         averageHeartRate: HKQuantity?, samplingFrequency: HKQuantity?, voltages: ElectrocardiogramVoltages,
         uuid: UUID, sourceRevision: HKSourceRevision?, device: HKDevice?, metadata: [String: Any]?) {
        self.classification = classification
        self.symptomsStatus = symptomsStatus
        self.averageHeartRate = averageHeartRate
        self.samplingFrequency = samplingFrequency
        self.voltages = voltages
        self.numberOfVoltageMeasurements = voltages.count
        super.init(sampleType: HKElectrocardiogramType(), startDate: start, endDate: end, uuid: uuid,
                   sourceRevision: sourceRevision, device: device, metadata: metadata)
    }

    /// The measurements in time order.
    func measurements() -> [VoltageMeasurement] {
        let hertz = (try? samplingFrequency?.value(in: .hertz())) ?? nil
        let count = voltages.count
        let step: Double
        if let hertz, hertz > 0, hertz.isFinite {
            step = 1 / hertz
        } else {
            step = count > 0 ? endDate.timeIntervalSince(startDate) / Double(count) : 0
        }
        return (0..<count).map { index in
            var values: [Lead: Float] = [:]
            for (position, lead) in voltages.leads.enumerated() { values[lead] = voltages.values[position * count + index] }
            return VoltageMeasurement(timeSinceSampleStart: Double(index) * step, microvolts: values)
        }
    }
}

/// An electrocardiogram's voltages, packed: the leads, the number of measurements per lead, and
/// the values in µV as 32-bit floats, lead after lead (a 30 s recording at 512 Hz is 60 KB in
/// one sealed record, not 15,360 rows).
struct ElectrocardiogramVoltages: Sendable, Equatable {
    var leads: [HKElectrocardiogram.Lead]
    var count: Int
    var values: [Float]

    static let empty = ElectrocardiogramVoltages(leads: [], count: 0, values: [])

    init(leads: [HKElectrocardiogram.Lead], count: Int, values: [Float]) {
        self.leads = leads
        self.count = count
        self.values = values
    }

    init(_ microvolts: [HKElectrocardiogram.Lead: [Float]]) throws {
        let leads = microvolts.keys.sorted { $0.rawValue < $1.rawValue }
        let count = leads.first.flatMap { microvolts[$0]?.count } ?? 0
        var values: [Float] = []
        values.reserveCapacity(count * leads.count)
        for lead in leads {
            guard let series = microvolts[lead], series.count == count else {
                throw HKError(.errorInvalidArgument, "every lead of an electrocardiogram must have the same number of voltages")
            }
            guard series.allSatisfy(\.isFinite) else {
                throw HKError(.errorInvalidArgument, "an electrocardiogram's voltages must be finite")
            }
            values += series
        }
        self.init(leads: leads, count: count, values: values)
    }
}

/// An electrocardiogram's details in a sealed payload's extra section.
///
/// Layout (little-endian): version byte (1), classification and symptoms status (`Int32`
/// each), average heart rate in count/min and sampling frequency in Hz (`Double`, NaN when
/// absent), the lead count (byte), each lead's raw value (`Int32`), the measurements per lead
/// (`UInt32`), then the values (`Float32` bits) lead after lead.
struct ElectrocardiogramDetails {
    static let version: UInt8 = 1
    /// The most measurements per lead read back (a 24-hour recording at 1 kHz).
    static let maximumCount = 86_400_000

    var classification: Int
    var symptomsStatus: Int
    var averageHeartRate: Double?
    var samplingFrequency: Double?
    var voltages: ElectrocardiogramVoltages

    /// The details of an electrocardiogram being saved, validated so that ``encoded()`` writes
    /// what ``init(decoding:)`` reads back.
    /// - Throws: `HKError.errorInvalidArgument` for a sampling frequency that is not a finite
    ///   number of hertz above zero, an average heart rate that is negative or not finite, more
    ///   than ``maximumCount`` measurements per lead, voltages that do not fill every lead, or
    ///   a voltage that is not finite.
    init(_ ecg: HKElectrocardiogram) throws {
        classification = ecg.classification.rawValue
        symptomsStatus = ecg.symptomsStatus.rawValue
        let averageHeartRate: Double?
        let samplingFrequency: Double?
        do {
            averageHeartRate = try ecg.averageHeartRate.map { try $0.value(in: .count().unitDivided(by: .minute())) }
        } catch {
            throw HKError(.errorInvalidArgument, "an electrocardiogram's average heart rate must be in count/min")
        }
        do {
            samplingFrequency = try ecg.samplingFrequency.map { try $0.value(in: .hertz()) }
        } catch {
            throw HKError(.errorInvalidArgument, "an electrocardiogram's sampling frequency must be in hertz")
        }
        if let samplingFrequency, !(samplingFrequency.isFinite && samplingFrequency > 0) {
            throw HKError(.errorInvalidArgument, "an electrocardiogram's sampling frequency must be a finite number of hertz above zero")
        }
        if let averageHeartRate, !(averageHeartRate.isFinite && averageHeartRate >= 0) {
            throw HKError(.errorInvalidArgument, "an electrocardiogram's average heart rate must be a finite count/min of zero or more")
        }
        let voltages = ecg.voltages
        guard voltages.count >= 0, voltages.count <= Self.maximumCount else {
            throw HKError(.errorInvalidArgument, "an electrocardiogram may hold at most \(Self.maximumCount) voltages per lead")
        }
        guard voltages.leads.count <= Int(UInt8.max), Set(voltages.leads).count == voltages.leads.count,
              voltages.values.count == voltages.count * voltages.leads.count else {
            throw HKError(.errorInvalidArgument, "every lead of an electrocardiogram must have the same number of voltages")
        }
        guard voltages.values.allSatisfy(\.isFinite) else {
            throw HKError(.errorInvalidArgument, "an electrocardiogram's voltages must be finite")
        }
        self.averageHeartRate = averageHeartRate
        self.samplingFrequency = samplingFrequency
        self.voltages = voltages
    }

    /// The details' bytes; for details made by ``init(_:)`` (at most 255 leads and
    /// ``maximumCount`` measurements, so every count fits its field).
    func encoded() -> Data {
        var writer = ByteWriter(capacity: 32 + voltages.leads.count * 4 + voltages.values.count * 4)
        writer.byte(Self.version)
        writer.uint32(UInt32(bitPattern: Int32(truncatingIfNeeded: classification)))
        writer.uint32(UInt32(bitPattern: Int32(truncatingIfNeeded: symptomsStatus)))
        writer.double(averageHeartRate ?? .nan)
        writer.double(samplingFrequency ?? .nan)
        writer.byte(UInt8(clamping: voltages.leads.count))
        for lead in voltages.leads { writer.uint32(UInt32(bitPattern: Int32(truncatingIfNeeded: lead.rawValue))) }
        writer.uint32(UInt32(clamping: voltages.count))
        for value in voltages.values { writer.uint32(value.bitPattern) }
        return Data(writer.bytes)
    }

    init(decoding data: Data) throws {
        let bytes = [UInt8](data)
        var offset = 0
        func integer(_ width: Int) throws -> UInt64 {
            guard bytes.count - offset >= width else { throw HealthStoreError(.corruptDatabase, "a sealed electrocardiogram is truncated") }
            var value: UInt64 = 0
            for index in 0..<width { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += width
            return value
        }
        guard try integer(1) == UInt64(Self.version) else {
            throw HealthStoreError(.corruptDatabase, "a sealed electrocardiogram has an unknown layout")
        }
        classification = Int(Int32(bitPattern: UInt32(try integer(4))))
        symptomsStatus = Int(Int32(bitPattern: UInt32(try integer(4))))
        let heartRate = Double(bitPattern: try integer(8))
        let frequency = Double(bitPattern: try integer(8))
        averageHeartRate = heartRate.isNaN ? nil : heartRate
        samplingFrequency = frequency.isNaN ? nil : frequency
        let leadCount = Int(try integer(1))
        var leads: [HKElectrocardiogram.Lead] = []
        for _ in 0..<leadCount {
            guard let lead = HKElectrocardiogram.Lead(rawValue: Int(Int32(bitPattern: UInt32(try integer(4))))) else {
                throw HealthStoreError(.corruptDatabase, "a sealed electrocardiogram names an unknown lead")
            }
            leads.append(lead)
        }
        let count = Int(try integer(4))
        guard count <= Self.maximumCount, bytes.count - offset == count * leadCount * 4 else {
            throw HealthStoreError(.corruptDatabase, "a sealed electrocardiogram's voltages are truncated")
        }
        var values = [Float](repeating: 0, count: count * leadCount)
        for index in values.indices {
            values[index] = Float(bitPattern: UInt32(try integer(4)))
        }
        voltages = ElectrocardiogramVoltages(leads: leads, count: count, values: values)
    }

    func makeSample(start: Date, end: Date, uuid: UUID, revision: HKSourceRevision, device: HKDevice?,
                    metadata: [String: Any]?) -> HKElectrocardiogram {
        HKElectrocardiogram(start: start, end: end,
                            classification: HKElectrocardiogram.Classification(rawValue: classification) ?? .unrecognized,
                            symptomsStatus: HKElectrocardiogram.SymptomsStatus(rawValue: symptomsStatus) ?? .notSet,
                            averageHeartRate: averageHeartRate.map { HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: $0) },
                            samplingFrequency: samplingFrequency.map { HKQuantity(unit: .hertz(), doubleValue: $0) },
                            voltages: voltages, uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
    }
}
