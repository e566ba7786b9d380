import Foundation
import HealthPresentation
import OpenHealthKit

/// The words and JSON members of the samples ``HealthFormatter`` has no value text for: states of
/// mind, GAD-7 and PHQ-9 assessments, electrocardiograms, audiograms, vision prescriptions,
/// heartbeat series and medication dose events (`health store add` prints them, `health store
/// query` lists them).
enum MeasurementText {
    private static let bpm = HKUnit.count().unitDivided(by: .minute())

    /// A line of words for a sample of one of these kinds, nil for the others:
    /// `Daily mood: pleasant (valence 0.4), feeling content, grateful, about family`,
    /// `GAD-7 score 5 of 21: mild anxiety risk`, `Sinus rhythm, average 72 bpm, 15360 measurements at 512 Hz`,
    /// `Hearing test: 500 Hz left 20, right 25 dB HL; …`, `Glasses: right sphere -1.25 D…`,
    /// `Heartbeat series of 52 beats`, `Taken: rxnorm:314076, 1 count (scheduled …)`.
    static func text(of sample: HKSample) -> String? {
        switch sample {
        case let mood as HKStateOfMind:
            var text = "\(mood.kind == .dailyMood ? "Daily mood" : "Momentary emotion"): \(words(mood.valenceClassification))"
                + " (valence \(formatNumber(mood.valence)))"
            if !mood.labels.isEmpty { text += ", feeling " + mood.labels.map { words($0) }.joined(separator: ", ") }
            if !mood.associations.isEmpty { text += ", about " + mood.associations.map { words($0) }.joined(separator: ", ") }
            return text
        case let gad7 as HKGAD7Assessment:
            return HealthFormatter.assessment(gad7)
        case let phq9 as HKPHQ9Assessment:
            return HealthFormatter.assessment(phq9)
        case let ecg as HKElectrocardiogram:
            var parts = [capitalized(words(ecg.classification))]
            if let rate = ecg.averageHeartRate { parts.append("average \(formatNumber(rate.doubleValue(for: bpm).rounded())) bpm") }
            var count = "\(ecg.numberOfVoltageMeasurements) measurement\(ecg.numberOfVoltageMeasurements == 1 ? "" : "s")"
            if let frequency = ecg.samplingFrequency { count += " at \(formatNumber(frequency.doubleValue(for: .hertz()))) Hz" }
            parts.append(count)
            if ecg.symptomsStatus == .present { parts.append("with symptoms") }
            return parts.joined(separator: ", ")
        case let audiogram as HKAudiogramSample:
            let points = audiogram.sensitivityPoints.map { point -> String in
                var ears: [String] = []
                if let left = point.leftEarSensitivity { ears.append("left \(formatNumber(left.doubleValue(for: .decibelHearingLevel())))") }
                if let right = point.rightEarSensitivity { ears.append("right \(formatNumber(right.doubleValue(for: .decibelHearingLevel())))") }
                return "\(formatNumber(point.frequency.doubleValue(for: .hertz()))) Hz " + (ears.isEmpty ? "no test" : ears.joined(separator: ", ") + " dB HL")
            }
            return "Hearing test: " + (points.isEmpty ? "no points" : points.joined(separator: "; "))
        case let glasses as HKGlassesPrescription:
            return prescriptionText("Glasses", right: glasses.rightEye, left: glasses.leftEye, glasses)
        case let contacts as HKContactsPrescription:
            let kind = contacts.brand.isEmpty ? "Contacts" : "Contacts (\(contacts.brand))"
            return prescriptionText(kind, right: contacts.rightEye, left: contacts.leftEye, contacts)
        case let series as HKHeartbeatSeriesSample:
            return "Heartbeat series of \(series.count) beat\(series.count == 1 ? "" : "s")"
        case let dose as HKMedicationDoseEvent:
            return doseText(dose, name: nil)
        default:
            return nil
        }
    }

    /// A dose's line: `Taken: Metformin, 1 count (scheduled …)`, with the medication's `name`
    /// when the caller knows it (the owner's medication list), else its concept identifier.
    static func doseText(_ dose: HKMedicationDoseEvent, name: String?) -> String {
        var text = "\(StoreMedicationsCommand.statusName(dose.logStatus)): \(name ?? dose.medicationConceptIdentifier.description)"
        if let quantity = dose.doseQuantity { text += ", \(formatNumber(quantity)) \(dose.unit.unitString)" }
        if let scheduled = dose.scheduledDate { text += " (scheduled \(formatDate(scheduled)))" } else { text += " (as needed)" }
        return text
    }

    /// The JSON members of a sample of one of these kinds (none for the others).
    static func fields(of sample: HKSample) -> [String: Any] {
        switch sample {
        case let mood as HKStateOfMind:
            return ["kind": name(mood.kind), "valence": mood.valence, "valenceClassification": name(mood.valenceClassification),
                    "labels": mood.labels.map { name($0) }, "associations": mood.associations.map { name($0) }]
        case let gad7 as HKGAD7Assessment:
            return ["assessment": "GAD7", "answers": gad7.answers.map { name($0) }, "score": gad7.score, "risk": name(gad7.risk)]
        case let phq9 as HKPHQ9Assessment:
            return ["assessment": "PHQ9", "answers": phq9.answers.map { name($0) }, "score": phq9.score, "risk": name(phq9.risk)]
        case let ecg as HKElectrocardiogram:
            var object: [String: Any] = ["classification": name(ecg.classification), "symptomsStatus": name(ecg.symptomsStatus),
                                         "numberOfVoltageMeasurements": ecg.numberOfVoltageMeasurements]
            if let rate = ecg.averageHeartRate { object["averageHeartRate"] = rate.doubleValue(for: bpm) }
            if let frequency = ecg.samplingFrequency { object["samplingFrequency"] = frequency.doubleValue(for: .hertz()) }
            return object
        case let audiogram as HKAudiogramSample:
            return ["sensitivityPoints": audiogram.sensitivityPoints.map { point -> [String: Any] in
                var object: [String: Any] = ["frequency": point.frequency.doubleValue(for: .hertz())]
                if let left = point.leftEarSensitivity { object["leftEarSensitivity"] = left.doubleValue(for: .decibelHearingLevel()) }
                if let right = point.rightEarSensitivity { object["rightEarSensitivity"] = right.doubleValue(for: .decibelHearingLevel()) }
                object["tests"] = point.tests.map { test -> [String: Any] in
                    ["side": test.side == .left ? "left" : "right", "conduction": "air", "masked": test.masked,
                     "sensitivity": test.sensitivity.doubleValue(for: .decibelHearingLevel())]
                }
                return object
            }]
        case let glasses as HKGlassesPrescription:
            var object = prescriptionFields(glasses)
            if let right = glasses.rightEye { object["rightEye"] = lensFields(right) }
            if let left = glasses.leftEye { object["leftEye"] = lensFields(left) }
            return object
        case let contacts as HKContactsPrescription:
            var object = prescriptionFields(contacts)
            object["brand"] = contacts.brand
            if let right = contacts.rightEye { object["rightEye"] = lensFields(right) }
            if let left = contacts.leftEye { object["leftEye"] = lensFields(left) }
            return object
        case let series as HKHeartbeatSeriesSample:
            return ["beats": series.count]
        case let dose as HKMedicationDoseEvent:
            var object: [String: Any] = ["status": name(dose.logStatus), "medication": dose.medicationConceptIdentifier.description,
                                         "scheduleType": name(dose.scheduleType), "doseUnit": dose.unit.unitString]
            if let quantity = dose.doseQuantity { object["doseQuantity"] = quantity }
            if let quantity = dose.scheduledDoseQuantity { object["scheduledDoseQuantity"] = quantity }
            if let scheduled = dose.scheduledDate { object["scheduledDate"] = isoDate(scheduled) }
            return object
        default:
            return [:]
        }
    }

    private static func prescriptionText(_ kind: String, right: HKLensSpecification?, left: HKLensSpecification?,
                                         _ prescription: HKVisionPrescription) -> String {
        var parts: [String] = []
        if let right { parts.append("right " + lensText(right)) }
        if let left { parts.append("left " + lensText(left)) }
        var text = "\(kind): " + (parts.isEmpty ? "no lenses" : parts.joined(separator: "; "))
        text += ", issued \(formatDate(prescription.dateIssued))"
        if let expiration = prescription.expirationDate { text += ", expires \(formatDate(expiration))" }
        return text
    }

    /// `sphere -1.25 D, cylinder -0.5 D, axis 90°, add 1.5 D` (and a contact lens' base curve and diameter in mm).
    private static func lensText(_ lens: HKLensSpecification) -> String {
        var parts = ["sphere \(diopters(lens.sphere)) D"]
        if let cylinder = lens.cylinder { parts.append("cylinder \(diopters(cylinder)) D") }
        if let axis = lens.axis { parts.append("axis \(formatNumber(axis.doubleValue(for: .degreeAngle())))°") }
        if let add = lens.addPower { parts.append("add \(diopters(add)) D") }
        if let contact = lens as? HKContactsLensSpecification {
            if let curve = contact.baseCurve { parts.append("base curve \(formatNumber(curve.doubleValue(for: .meterUnit(with: .milli)))) mm") }
            if let diameter = contact.diameter { parts.append("diameter \(formatNumber(diameter.doubleValue(for: .meterUnit(with: .milli)))) mm") }
        }
        return parts.joined(separator: ", ")
    }

    private static func lensFields(_ lens: HKLensSpecification) -> [String: Any] {
        var object: [String: Any] = ["sphere": lens.sphere.doubleValue(for: .diopter())]
        if let cylinder = lens.cylinder { object["cylinder"] = cylinder.doubleValue(for: .diopter()) }
        if let axis = lens.axis { object["axis"] = axis.doubleValue(for: .degreeAngle()) }
        if let add = lens.addPower { object["addPower"] = add.doubleValue(for: .diopter()) }
        let millimeter = HKUnit.meterUnit(with: .milli)
        if let glasses = lens as? HKGlassesLensSpecification {
            if let distance = glasses.vertexDistance { object["vertexDistance"] = distance.doubleValue(for: millimeter) }
            if let distance = glasses.farPupillaryDistance { object["farPupillaryDistance"] = distance.doubleValue(for: millimeter) }
            if let distance = glasses.nearPupillaryDistance { object["nearPupillaryDistance"] = distance.doubleValue(for: millimeter) }
        }
        if let contact = lens as? HKContactsLensSpecification {
            if let curve = contact.baseCurve { object["baseCurve"] = curve.doubleValue(for: millimeter) }
            if let diameter = contact.diameter { object["diameter"] = diameter.doubleValue(for: millimeter) }
        }
        return object
    }

    private static func prescriptionFields(_ prescription: HKVisionPrescription) -> [String: Any] {
        var object: [String: Any] = ["prescriptionType": prescription.prescriptionType == .glasses ? "glasses" : "contacts",
                                     "dateIssued": isoDate(prescription.dateIssued)]
        if let expiration = prescription.expirationDate { object["expirationDate"] = isoDate(expiration) }
        return object
    }

    /// A power in diopters with its sign: `-1.25`, `+1.5`, `0`.
    private static func diopters(_ quantity: HKQuantity) -> String {
        let value = quantity.doubleValue(for: .diopter())
        return value > 0 ? "+" + formatNumber(value) : formatNumber(value)
    }

    /// A case's Swift name: `selfCare`, `veryPleasant`, `nearlyEveryDay`.
    static func name(_ value: some Any) -> String { String(describing: value) }

    /// A case's name in words: `self care`, `very pleasant`, `none to minimal`.
    static func words(_ value: some Any) -> String {
        var text = ""
        for character in name(value) {
            if character.isUppercase, !text.isEmpty { text.append(" ") }
            text.append(contentsOf: character.lowercased())
        }
        return text
    }

    private static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
