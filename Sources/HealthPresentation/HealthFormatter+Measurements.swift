import Foundation
import OpenHealthKit

/// The words of the samples that are neither quantities, categories, correlations nor
/// workouts, as the Health app writes them: a state of mind ("Daily Mood: Slightly Pleasant"),
/// a GAD-7 or PHQ-9 score with its risk, an ECG's classification, an audiogram's hearing levels
/// in dBHL, a vision prescription's lenses, a heartbeat series' beats and a medication dose's status.
extension HealthFormatter {
    /// The value of a sample of one of these types; nil for another sample.
    func measurementValue(of sample: HKSample) -> String? {
        switch sample {
        case let mind as HKStateOfMind:
            return Self.stateOfMind(mind)
        case let gad7 as HKGAD7Assessment:
            return Self.assessment(gad7)
        case let phq9 as HKPHQ9Assessment:
            return Self.assessment(phq9)
        case let ecg as HKElectrocardiogram:
            var parts = [Self.classificationName(ecg.classification)]
            if let rate = ecg.averageHeartRate { parts.append("\(quantity(rate, of: HKQuantityType(.heartRate))) average") }
            return parts.joined(separator: ", ")
        case let audiogram as HKAudiogramSample:
            return Self.audiogram(audiogram)
        case let prescription as HKVisionPrescription:
            return Self.prescription(prescription)
        case let series as HKHeartbeatSeriesSample:
            let beats = "\(NumberText.format(Double(series.count), decimals: 0)) beat\(series.count == 1 ? "" : "s")"
            let length = series.endDate.timeIntervalSince(series.startDate)
            return length > 0 ? "\(beats) in \(Self.duration(length))" : beats
        case let dose as HKMedicationDoseEvent:
            return Self.dose(dose)
        default:
            return nil
        }
    }

    // MARK: State of mind

    /// A state of mind: "Daily Mood: Slightly Pleasant; Happy, Calm; Work, Family".
    public static func stateOfMind(_ mind: HKStateOfMind) -> String {
        var text = "\(kindName(mind.kind)): \(valenceName(mind.valenceClassification))"
        if !mind.labels.isEmpty { text += "; " + mind.labels.map(labelName).joined(separator: ", ") }
        if !mind.associations.isEmpty { text += "; " + mind.associations.map(associationName).joined(separator: ", ") }
        return text
    }

    /// "Momentary Emotion" or "Daily Mood".
    public static func kindName(_ kind: HKStateOfMind.Kind) -> String {
        switch kind {
        case .momentaryEmotion: "Momentary Emotion"
        case .dailyMood: "Daily Mood"
        }
    }

    /// A valence's classification as the Health app words it: "Very Unpleasant" … "Very Pleasant".
    public static func valenceName(_ classification: HKStateOfMind.ValenceClassification) -> String {
        switch classification {
        case .veryUnpleasant: "Very Unpleasant"
        case .unpleasant: "Unpleasant"
        case .slightlyUnpleasant: "Slightly Unpleasant"
        case .neutral: "Neither Pleasant nor Unpleasant"
        case .slightlyPleasant: "Slightly Pleasant"
        case .pleasant: "Pleasant"
        case .veryPleasant: "Very Pleasant"
        }
    }

    /// A label's word: "Happy", "Stressed".
    public static func labelName(_ label: HKStateOfMind.Label) -> String {
        words(String(describing: label))
    }

    /// An association's words: "Current Events", "Self Care".
    public static func associationName(_ association: HKStateOfMind.Association) -> String {
        words(String(describing: association))
    }

    /// A Swift case name in words, each capitalized: "currentEvents" → "Current Events".
    private static func words(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, !result.isEmpty { result += " " }
            result.append(result.isEmpty ? Character(character.uppercased()) : character)
        }
        return result
    }

    // MARK: Assessments

    /// A GAD-7 assessment in words, the same in `health ui` and the CLI: `GAD-7 score 7 of 21: mild anxiety risk`.
    public static func assessment(_ gad7: HKGAD7Assessment) -> String {
        "GAD-7 score \(gad7.score) of 21: \(riskName(gad7.risk).lowercased()) anxiety risk"
    }

    /// A PHQ-9 assessment in words, the same in `health ui` and the CLI:
    /// `PHQ-9 score 17 of 27: moderately severe depression risk`.
    public static func assessment(_ phq9: HKPHQ9Assessment) -> String {
        "PHQ-9 score \(phq9.score) of 27: \(riskName(phq9.risk).lowercased()) depression risk"
    }

    /// A GAD-7 risk: "None to Minimal", "Mild", "Moderate", "Severe".
    public static func riskName(_ risk: HKGAD7Assessment.Risk) -> String {
        switch risk {
        case .noneToMinimal: "None to Minimal"
        case .mild: "Mild"
        case .moderate: "Moderate"
        case .severe: "Severe"
        }
    }

    /// A PHQ-9 risk: "None to Minimal" … "Moderately Severe", "Severe".
    public static func riskName(_ risk: HKPHQ9Assessment.Risk) -> String {
        switch risk {
        case .noneToMinimal: "None to Minimal"
        case .mild: "Mild"
        case .moderate: "Moderate"
        case .moderatelySevere: "Moderately Severe"
        case .severe: "Severe"
        }
    }

    // MARK: ECG

    /// An ECG's classification as the ECG app words it.
    public static func classificationName(_ classification: HKElectrocardiogram.Classification) -> String {
        switch classification {
        case .notSet: "Not Classified"
        case .sinusRhythm: "Sinus Rhythm"
        case .atrialFibrillation: "Atrial Fibrillation"
        case .inconclusiveLowHeartRate: "Inconclusive: Heart Rate Under 50"
        case .inconclusiveHighHeartRate: "Inconclusive: High Heart Rate"
        case .inconclusivePoorReading: "Inconclusive: Poor Recording"
        case .inconclusiveOther: "Inconclusive"
        case .unrecognized: "Unrecognized"
        }
    }

    /// A frequency in whole hertz, as hearing tests and ECGs write it: "512 Hz", "1,000 Hz".
    public static func hertz(_ quantity: HKQuantity) -> String {
        guard quantity.is(compatibleWith: .hertz()) else { return "" }
        return "\(NumberText.format(quantity.doubleValue(for: .hertz()), decimals: 0)) Hz"
    }

    // MARK: Audiogram

    /// A hearing level in dBHL: "20 dBHL".
    public static func hearingLevel(_ quantity: HKQuantity?) -> String {
        guard let quantity, quantity.is(compatibleWith: .decibelHearingLevel()) else { return "–" }
        return "\(NumberText.format(quantity.doubleValue(for: .decibelHearingLevel()), decimals: 0)) dBHL"
    }

    /// An audiogram: each ear's average hearing level over the frequencies tested, as the
    /// Health app's summary ("Left 20 dBHL, right 25 dBHL average, 6 frequencies").
    public static func audiogram(_ audiogram: HKAudiogramSample) -> String {
        let unit = HKUnit.decibelHearingLevel()
        func average(_ levels: [HKQuantity?]) -> String? {
            let values = levels.compactMap { $0?.doubleValue(for: unit) }
            guard !values.isEmpty else { return nil }
            return "\(NumberText.format(values.reduce(0, +) / Double(values.count), decimals: 0)) dBHL"
        }
        let points = audiogram.sensitivityPoints
        var ears: [String] = []
        if let left = average(points.map(\.leftEarSensitivity)) { ears.append("left \(left)") }
        if let right = average(points.map(\.rightEarSensitivity)) { ears.append("right \(right)") }
        let count = "\(points.count) frequenc\(points.count == 1 ? "y" : "ies")"
        guard !ears.isEmpty else { return count }
        let text = ears.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst() + " average, " + count
    }

    // MARK: Vision prescription

    /// "Glasses" or "Contacts".
    public static func prescriptionKind(_ type: HKVisionPrescriptionType) -> String {
        switch type {
        case .glasses: "Glasses"
        case .contacts: "Contacts"
        }
    }

    /// A lens in an optician's words: "-2.00 sphere, -0.50 cylinder, axis 90°, add +1.25".
    public static func lens(_ lens: HKLensSpecification) -> String {
        var parts = ["\(diopters(lens.sphere)) sphere"]
        if let cylinder = lens.cylinder { parts.append("\(diopters(cylinder)) cylinder") }
        if let axis = lens.axis, axis.is(compatibleWith: .degreeAngle()) {
            parts.append("axis \(NumberText.format(axis.doubleValue(for: .degreeAngle()), decimals: 0))°")
        }
        if let add = lens.addPower { parts.append("add \(diopters(add))") }
        if let contacts = lens as? HKContactsLensSpecification {
            if let curve = contacts.baseCurve { parts.append("base curve \(millimetres(curve))") }
            if let diameter = contacts.diameter { parts.append("diameter \(millimetres(diameter))") }
        }
        return parts.joined(separator: ", ")
    }

    /// Diopters with their sign and two decimals, as a prescription writes them: "-2.00", "+1.25".
    public static func diopters(_ quantity: HKQuantity) -> String {
        guard quantity.is(compatibleWith: .diopter()) else { return "" }
        let value = quantity.doubleValue(for: .diopter())
        let text = String(format: "%.2f", abs(value))
        return value < 0 ? "-\(text)" : "+\(text)"
    }

    private static func millimetres(_ quantity: HKQuantity) -> String {
        let unit = HKUnit.meterUnit(with: .milli)
        guard quantity.is(compatibleWith: unit) else { return "" }
        return "\(NumberText.format(quantity.doubleValue(for: unit), decimals: 1)) mm"
    }

    /// A prescription's eyes: (right, left), each nil when the prescription has no lens for it.
    public static func eyes(of prescription: HKVisionPrescription) -> (right: HKLensSpecification?, left: HKLensSpecification?) {
        switch prescription {
        case let glasses as HKGlassesPrescription: (glasses.rightEye, glasses.leftEye)
        case let contacts as HKContactsPrescription: (contacts.rightEye, contacts.leftEye)
        default: (nil, nil)
        }
    }

    /// A prescription: "Glasses: right -2.00 sphere, -0.50 cylinder, axis 90°; left -1.75 sphere".
    public static func prescription(_ prescription: HKVisionPrescription) -> String {
        var kind = prescriptionKind(prescription.prescriptionType)
        if let contacts = prescription as? HKContactsPrescription, !contacts.brand.isEmpty { kind += " (\(contacts.brand))" }
        let eyes = eyes(of: prescription)
        let parts = [eyes.right.map { "right \(lens($0))" }, eyes.left.map { "left \(lens($0))" }].compactMap { $0 }
        return parts.isEmpty ? kind : "\(kind): " + parts.joined(separator: "; ")
    }

    // MARK: Medication doses

    /// A dose's status as the Medications list words it: "Taken", "Skipped", "Snoozed", "Not Logged".
    public static func doseStatus(_ status: HKMedicationDoseEvent.LogStatus) -> String {
        switch status {
        case .notInteracted: "No Response"
        case .notificationNotSent: "Reminder Not Sent"
        case .snoozed: "Snoozed"
        case .taken: "Taken"
        case .skipped: "Skipped"
        case .notLogged: "Not Logged"
        }
    }

    /// A dose's amount: "2", "500 mg" (a count is written as the number alone); nil without one.
    public static func doseAmount(_ dose: HKMedicationDoseEvent) -> String? {
        guard let quantity = dose.doseQuantity ?? dose.scheduledDoseQuantity, quantity.isFinite else { return nil }
        let number = NumberText.format(quantity, decimals: NumberText.significantDecimals(quantity))
        let unit = dose.unit.unitString
        return unit == "count" || unit.isEmpty ? number : "\(number) \(unit)"
    }

    /// A dose: "Taken, 1 (scheduled)", "Skipped (as needed)".
    public static func dose(_ dose: HKMedicationDoseEvent) -> String {
        var text = doseStatus(dose.logStatus)
        if let amount = doseAmount(dose), dose.logStatus == .taken { text += ", \(amount)" }
        return text + (dose.scheduleType == .asNeeded ? " (as needed)" : " (scheduled)")
    }
}
