import ArgumentParser
import Foundation
import OpenHealthKit

/// The `health store add` forms of states of mind, GAD-7 and PHQ-9 assessments, audiograms and
/// vision prescriptions: each reads its own options and refuses what the type cannot hold with
/// a message naming the option (a usage error, as other bad input is).
enum MeasurementInput {
    /// A state of mind: `--value` is the valence (−1 very unpleasant … +1 very pleasant),
    /// `--kind` `momentary-emotion` (the default) or `daily-mood`, `--labels` and `--associations`
    /// comma-separated names (`happy,grateful`; `family,self-care`).
    static func stateOfMind(value: String?, kind: String?, labels: String?, associations: String?, at date: Date,
                            metadata: [String: Any]?) throws -> HKStateOfMind {
        guard let value else { throw ValidationError("--value is required for a state of mind: its valence, from -1 (very unpleasant) to 1 (very pleasant)") }
        guard let valence = Double(value.trimmingCharacters(in: .whitespaces)), valence.isFinite, (-1...1).contains(valence) else {
            throw ValidationError("--value '\(value)' is not a valence: a number from -1 (very unpleasant) to 1 (very pleasant)")
        }
        let kindValue: HKStateOfMind.Kind
        switch kind.map(key) ?? "momentary" {
        case "momentary", "momentaryemotion", "emotion": kindValue = .momentaryEmotion
        case "daily", "dailymood", "mood": kindValue = .dailyMood
        default: throw ValidationError("--kind '\(kind ?? "")' is not a kind of state of mind: momentary-emotion or daily-mood")
        }
        let labelValues: [HKStateOfMind.Label] = try names(labels, option: "--labels", of: HKStateOfMind.Label.allCases)
        let associationValues: [HKStateOfMind.Association] = try names(associations, option: "--associations",
                                                                        of: HKStateOfMind.Association.allCases)
        return HKStateOfMind(date: date, kind: kindValue, valence: valence, labels: labelValues, associations: associationValues,
                             metadata: metadata ?? [:])
    }

    /// A GAD-7 (7 answers) or PHQ-9 (9 answers) assessment: `--answers` comma-separated, each a
    /// score 0–3 or a name (`not-at-all`, `several-days`, `more-than-half-the-days`,
    /// `nearly-every-day`); PHQ-9's ninth may be `prefer-not-to-answer`.
    static func assessment(_ type: HKScoredAssessmentType, answers: String?, at date: Date, metadata: [String: Any]?) throws -> HKSample {
        let isGAD7 = type.identifier == HKScoredAssessmentTypeIdentifier.GAD7.rawValue
        let count = isGAD7 ? 7 : 9
        let title = isGAD7 ? "GAD-7" : "PHQ-9"
        guard let answers else {
            throw ValidationError("--answers is required for a \(title) assessment: \(count) answers, each 0-3 (not at all … nearly every day)")
        }
        let items = answers.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard items.count == count else {
            throw ValidationError("--answers has \(items.count) answer\(items.count == 1 ? "" : "s"); a \(title) assessment has \(count)")
        }
        if isGAD7 {
            let values: [HKGAD7Assessment.Answer] = try items.map { item in
                guard let answer = Int(item).flatMap(HKGAD7Assessment.Answer.init(rawValue:))
                        ?? HKGAD7Assessment.Answer.allCases.first(where: { key(MeasurementText.name($0)) == key(item) }) else {
                    throw ValidationError("'\(item)' is not a GAD-7 answer: 0-3, or not-at-all, several-days, more-than-half-the-days, nearly-every-day")
                }
                return answer
            }
            return HKGAD7Assessment(date: date, answers: values, metadata: metadata ?? [:])
        }
        let values: [HKPHQ9Assessment.Answer] = try items.enumerated().map { index, item in
            guard let answer = Int(item).flatMap(HKPHQ9Assessment.Answer.init(rawValue:))
                    ?? HKPHQ9Assessment.Answer.allCases.first(where: { key(MeasurementText.name($0)) == key(item) }) else {
                throw ValidationError("'\(item)' is not a PHQ-9 answer: 0-3, or not-at-all, several-days, more-than-half-the-days, "
                                          + "nearly-every-day (prefer-not-to-answer, or 4, for the ninth)")
            }
            if answer == .preferNotToAnswer, index != 8 {
                throw ValidationError("only the ninth PHQ-9 question may be answered prefer-not-to-answer, not question \(index + 1)")
            }
            return answer
        }
        return HKPHQ9Assessment(date: date, answers: values, metadata: metadata ?? [:])
    }

    /// An audiogram: `--points` comma-separated `HZ:LEFT/RIGHT` in dB HL (`500:20/25,1000:15/20`),
    /// an ear without a test as `-` (`4000:-/40`); frequencies unique and ascending, at most 30.
    static func audiogram(points: String?, start: Date, end: Date, metadata: [String: Any]?) throws -> HKAudiogramSample {
        let form = "HZ:LEFT/RIGHT in dB HL, e.g. 500:20/25,1000:15/20 ('-' for an ear not tested)"
        guard let points else { throw ValidationError("--points is required for an audiogram: \(form)") }
        var parsed: [HKAudiogramSensitivityPoint] = []
        var last = 0.0
        for item in points.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
            let ears = parts.count == 2 ? parts[1].split(separator: "/", omittingEmptySubsequences: false).map(String.init) : []
            guard parts.count == 2, ears.count == 2, let hertz = Double(parts[0]), hertz.isFinite, hertz > 0 else {
                throw ValidationError("--points '\(item)' is not a point: \(form)")
            }
            guard hertz > last else { throw ValidationError("--points: the frequencies must be unique and ascending (\(formatNumber(hertz)) Hz)") }
            last = hertz
            func sensitivity(_ text: String) throws -> HKQuantity? {
                let text = text.trimmingCharacters(in: .whitespaces)
                if text == "-" { return nil }
                guard let value = Double(text), value.isFinite else { throw ValidationError("--points '\(item)': '\(text)' is not a number of dB HL") }
                return HKQuantity(unit: .decibelHearingLevel(), doubleValue: value)
            }
            let left = try sensitivity(ears[0]), right = try sensitivity(ears[1])
            guard left != nil || right != nil else { throw ValidationError("--points '\(item)': neither ear has a value") }
            var tests: [HKAudiogramSensitivityTest] = []
            for (quantity, side) in [(left, HKAudiogramSensitivityTestSide.left), (right, .right)] {
                guard let quantity else { continue }
                tests.append(try HKAudiogramSensitivityTest(sensitivity: quantity, type: .air, masked: false, side: side, clampingRange: nil))
            }
            parsed.append(try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertz(), doubleValue: hertz), tests: tests))
        }
        guard !parsed.isEmpty, parsed.count <= 30 else { throw ValidationError("--points: an audiogram has 1 to 30 points, not \(parsed.count)") }
        return HKAudiogramSample(sensitivityPoints: parsed, start: start, end: end, device: nil, metadata: metadata)
    }

    /// A vision prescription issued at `issued`: `--right` and `--left` each
    /// `SPHERE[/CYLINDER/AXIS[/ADD]]` in diopters and degrees (`-1.25/-0.5/90`); with `--brand`
    /// it is for contacts, else for glasses; `--expires` when it expires.
    static func prescription(right: String?, left: String?, brand: String?, issued: Date, expires: Date?,
                             metadata: [String: Any]?) throws -> HKVisionPrescription {
        guard right != nil || left != nil else {
            throw ValidationError("--right or --left is required for a vision prescription: SPHERE[/CYLINDER/AXIS[/ADD]], e.g. -1.25/-0.5/90")
        }
        if let expires, expires < issued { throw ValidationError("--expires is before the prescription was issued (--start)") }
        let rightLens = try right.map { try lens($0, option: "--right") }
        let leftLens = try left.map { try lens($0, option: "--left") }
        func quantity(_ value: Double?, _ unit: HKUnit) -> HKQuantity? { value.map { HKQuantity(unit: unit, doubleValue: $0) } }
        if let brand {
            func contacts(_ lens: Lens?) -> HKContactsLensSpecification? {
                lens.map {
                    HKContactsLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: $0.sphere), cylinder: quantity($0.cylinder, .diopter()),
                                                axis: quantity($0.axis, .degreeAngle()), addPower: quantity($0.add, .diopter()),
                                                baseCurve: nil, diameter: nil)
                }
            }
            return HKContactsPrescription(rightEyeSpecification: contacts(rightLens), leftEyeSpecification: contacts(leftLens), brand: brand,
                                          dateIssued: issued, expirationDate: expires, device: nil, metadata: metadata)
        }
        func glasses(_ lens: Lens?) -> HKGlassesLensSpecification? {
            lens.map {
                HKGlassesLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: $0.sphere), cylinder: quantity($0.cylinder, .diopter()),
                                           axis: quantity($0.axis, .degreeAngle()), addPower: quantity($0.add, .diopter()), vertexDistance: nil,
                                           prism: nil, farPupillaryDistance: nil, nearPupillaryDistance: nil)
            }
        }
        return HKGlassesPrescription(rightEyeSpecification: glasses(rightLens), leftEyeSpecification: glasses(leftLens), dateIssued: issued,
                                     expirationDate: expires, device: nil, metadata: metadata)
    }

    private struct Lens {
        var sphere: Double
        var cylinder: Double?
        var axis: Double?
        var add: Double?
    }

    private static func lens(_ text: String, option: String) throws -> Lens {
        let form = "SPHERE[/CYLINDER/AXIS[/ADD]] in diopters and degrees, e.g. -1.25/-0.5/90"
        let numbers = text.split(separator: "/", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard [1, 3, 4].contains(numbers.count), numbers.allSatisfy({ $0?.isFinite == true }) else {
            throw ValidationError("\(option) '\(text)' is not a lens: \(form)")
        }
        let values = numbers.compactMap { $0 }
        if values.count >= 3, !(0...180).contains(values[2]) {
            throw ValidationError("\(option): the axis is from 0 to 180 degrees, not \(formatNumber(values[2]))")
        }
        return Lens(sphere: values[0], cylinder: values.count >= 3 ? values[1] : nil, axis: values.count >= 3 ? values[2] : nil,
                    add: values.count == 4 ? values[3] : nil)
    }

    /// Comma-separated case names, matched without case, dashes or spaces (`self-care`, `selfCare`).
    private static func names<Value>(_ text: String?, option: String, of cases: [Value]) throws -> [Value] {
        guard let text else { return [] }
        var values: [Value] = []
        for item in text.split(separator: ",").map({ String($0) }) where !key(item).isEmpty {
            guard let value = cases.first(where: { key(MeasurementText.name($0)) == key(item) }) else {
                throw ValidationError("\(option): '\(item.trimmingCharacters(in: .whitespaces))' is not one of "
                                          + cases.map { MeasurementText.name($0) }.joined(separator: ", "))
            }
            values.append(value)
        }
        return values
    }

    private static func key(_ text: String) -> String {
        text.lowercased().filter { $0.isLetter || $0.isNumber }
    }
}
