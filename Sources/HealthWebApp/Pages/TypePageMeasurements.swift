import Foundation
import HealthPresentation
import OpenHealthKit

/// The rows of the types that are neither quantities, categories, correlations nor workouts, in
/// the Health app's words: a state of mind's kind, feeling, labels and associations; an
/// assessment's score and risk; an ECG's result, average heart rate, sampling frequency and
/// number of voltage measurements (and the newest one's trace); an audiogram's hearing levels
/// per frequency; a vision prescription's lenses; a heartbeat series' beats; a medication
/// dose's medication and status.
struct TypePageMeasurements {
    let text: SampleText

    /// The columns of a type's rows (before "Delete"); nil for a type shown as "When, Value, Source".
    static func columns(for type: HKSampleType) -> [String]? {
        switch type {
        case is HKStateOfMindType: ["When", "Kind", "Feeling", "Labels", "Associations", "Source"]
        case is HKScoredAssessmentType: ["When", "Score", "Risk", "Source"]
        case is HKElectrocardiogramType:
            ["When", "Result", "Average heart rate", "Sampling frequency", "Voltage measurements", "Symptoms", "Source"]
        case is HKAudiogramSampleType: ["When", "Left ear", "Right ear", "Hearing level per frequency", "Source"]
        case is HKPrescriptionType: ["Issued", "Type", "Right eye", "Left eye", "Expires", "Source"]
        case is HKMedicationDoseEventType: ["When", "Medication", "Status", "Dose", "Schedule", "Source"]
        case let series as HKSeriesType where series.identifier == HKDataTypeIdentifierHeartbeatSeries:
            ["When", "Beats", "Duration", "Average heart rate", "Source"]
        default: nil
        }
    }

    /// A sample's cells, for the columns of ``columns(for:)``.
    /// - Parameter medications: the store's medications, to name a dose's medication.
    func cells(_ sample: HKSample, medications: [HKUserAnnotatedMedication]) -> [String] {
        let formatter = text.formatter
        let when = formatter.span(from: sample.startDate, to: sample.endDate)
        let source = sample.sourceRevision.source.name
        switch sample {
        case let mind as HKStateOfMind:
            return [when, HealthFormatter.kindName(mind.kind), HealthFormatter.valenceName(mind.valenceClassification),
                    Self.list(mind.labels.map(HealthFormatter.labelName)), Self.list(mind.associations.map(HealthFormatter.associationName)), source]
        case let gad7 as HKGAD7Assessment:
            return [when, "\(gad7.score) of 21", "\(HealthFormatter.riskName(gad7.risk)) anxiety risk", source]
        case let phq9 as HKPHQ9Assessment:
            return [when, "\(phq9.score) of 27", "\(HealthFormatter.riskName(phq9.risk)) depression risk", source]
        case let ecg as HKElectrocardiogram:
            return [when, HealthFormatter.classificationName(ecg.classification),
                    ecg.averageHeartRate.map { formatter.quantity($0, of: HKQuantityType(.heartRate)) } ?? "–",
                    ecg.samplingFrequency.map(HealthFormatter.hertz) ?? "–",
                    NumberText.format(Double(ecg.numberOfVoltageMeasurements), decimals: 0),
                    Self.symptoms(ecg.symptomsStatus), source]
        case let audiogram as HKAudiogramSample:
            let points = audiogram.sensitivityPoints
            func average(_ levels: [HKQuantity?]) -> String {
                let values = levels.compactMap { $0?.doubleValue(for: .decibelHearingLevel()) }
                return values.isEmpty ? "–" : HealthFormatter.hearingLevel(HKQuantity(unit: .decibelHearingLevel(),
                                                                                       doubleValue: values.reduce(0, +) / Double(values.count))) + " average"
            }
            let each = points.map { point in
                "\(HealthFormatter.hertz(point.frequency)): left \(HealthFormatter.hearingLevel(point.leftEarSensitivity)), "
                    + "right \(HealthFormatter.hearingLevel(point.rightEarSensitivity))"
            }
            return [when, average(points.map(\.leftEarSensitivity)), average(points.map(\.rightEarSensitivity)), Self.list(each, separator: "; "), source]
        case let prescription as HKVisionPrescription:
            var kind = HealthFormatter.prescriptionKind(prescription.prescriptionType)
            if let contacts = prescription as? HKContactsPrescription, !contacts.brand.isEmpty { kind += " (\(contacts.brand))" }
            let eyes = HealthFormatter.eyes(of: prescription)
            return [String(text.date(prescription.dateIssued).prefix(10)), kind, eyes.right.map(HealthFormatter.lens) ?? "–",
                    eyes.left.map(HealthFormatter.lens) ?? "–", prescription.expirationDate.map { String(text.date($0).prefix(10)) } ?? "–", source]
        case let series as HKHeartbeatSeriesSample:
            let length = series.endDate.timeIntervalSince(series.startDate)
            let rate = length > 0 && series.count > 1
                ? formatter.quantity(HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: Double(series.count - 1) / length * 60),
                                     of: HKQuantityType(.heartRate))
                : "–"
            return [when, NumberText.format(Double(series.count), decimals: 0), length > 0 ? SampleText.duration(length) : "–", rate, source]
        case let dose as HKMedicationDoseEvent:
            let medication = medications.first { $0.medication.identifier == dose.medicationConceptIdentifier }
            return [when, medication.map { $0.nickname ?? $0.medication.displayText } ?? "Unknown medication",
                    HealthFormatter.doseStatus(dose.logStatus), HealthFormatter.doseAmount(dose) ?? "–",
                    dose.scheduleType == .asNeeded ? "As needed" : "Scheduled", source]
        default:
            return [when, text.value(of: sample), source]
        }
    }

    /// Whether the person noted symptoms with an ECG: "None", "Recorded", "Not recorded".
    private static func symptoms(_ status: HKElectrocardiogram.SymptomsStatus) -> String {
        switch status {
        case .notSet: "Not recorded"
        case .none: "None"
        case .present: "Recorded"
        }
    }

    private static func list(_ items: [String], separator: String = ", ") -> String {
        items.isEmpty ? "–" : items.joined(separator: separator)
    }

    /// The store's medications (archived ones too), to name the doses of a page: a person
    /// tracks a few, so they are read once per page.
    static func medications(in store: HKHealthStore) async throws -> [HKUserAnnotatedMedication] {
        try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store)
    }

    /// How many points the trace draws at most: each is the lowest or highest voltage of a
    /// stretch of the recording (so a peak is never dropped), or its first or last voltage.
    static let tracePoints = 1_200

    /// A small SVG trace of an ECG's lead I voltages (Apple Watch's lead), its title and
    /// description naming it; "" when it has no voltages.
    static func trace(_ ecg: HKElectrocardiogram, in store: HKHealthStore, text: SampleText) async throws -> String {
        var volts: [Double] = []
        volts.reserveCapacity(max(0, min(ecg.numberOfVoltageMeasurements, 100_000)))
        var seconds = 0.0
        for try await measurement in HKElectrocardiogramQueryDescriptor(ecg).results(for: store) {
            guard volts.count < 100_000 else { break }
            if let value = measurement.quantity(for: .appleWatchSimilarToLeadI)?.doubleValue(for: .voltUnit(with: .micro)), value.isFinite {
                volts.append(value)
                seconds = measurement.timeSinceSampleStart
            }
        }
        guard volts.count > 1, let low = volts.min(), let high = volts.max() else { return "" }
        let width = 600.0, height = 120.0
        // At most tracePoints / 2 - 1 stretches, each drawn as its lowest and highest voltage in the
        // order they came, and the first and last voltage, so the trace spans the whole width.
        let stretch = max(1, Int((Double(volts.count) / Double(tracePoints / 2 - 1)).rounded(.up)))
        var indices = [0]
        var start = 0
        while start < volts.count {
            let slice = volts[start..<min(start + stretch, volts.count)]
            if let lowest = slice.indices.min(by: { volts[$0] < volts[$1] }), let highest = slice.indices.max(by: { volts[$0] < volts[$1] }) {
                for index in [min(lowest, highest), max(lowest, highest)] where index != indices.last { indices.append(index) }
            }
            start += stretch
        }
        if indices.last != volts.count - 1 { indices.append(volts.count - 1) }
        let points = indices.map { (x: $0, value: volts[$0]) }
        let span = high - low > 0 ? high - low : 1
        // The closure says String: otherwise its literal is inferred as GRDB's SQL (joined by
        // SQL's joined(separator:)), and the points became SQL's description, not numbers.
        let coordinates = points.map { point -> String in
            let x = Double(point.x) / Double(volts.count - 1) * width
            let y = height - 4 - (point.value - low) / span * (height - 8)
            return "\(SVGChart.n(x)),\(SVGChart.n(y))"
        }.joined(separator: " ")
        let title = "ECG of \(text.date(ecg.startDate)): lead I, \(SampleText.duration(seconds))"
        let description = "Voltage over time, \(NumberText.format(low, decimals: 0)) to \(NumberText.format(high, decimals: 0)) µV."
        return """
            <section class="card" aria-labelledby="ecg-trace-heading">
            <h2 id="ecg-trace-heading">Newest ECG on this page</h2>
            <svg class="ecg-trace" viewBox="0 0 \(Int(width)) \(Int(height))" width="100%" role="img" aria-labelledby="ecg-trace-title ecg-trace-desc" \
            preserveAspectRatio="none">
            <title id="ecg-trace-title">\(title)</title><desc id="ecg-trace-desc">\(description)</desc>
            <polyline fill="none" stroke="currentColor" stroke-width="1.2" vector-effect="non-scaling-stroke" points="\(coordinates)"/>
            </svg>
            <p class="muted">\(title). \(description)</p>
            </section>
            """
    }
}
