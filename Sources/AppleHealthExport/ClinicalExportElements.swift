import Foundation
import OpenHealthKit

/// The export.xml elements of clinical measurements: `Audiogram` (with its `SensitivityPoint`
/// children) and `VisionPrescription` (with its `RightEye` and `LeftEye` lens specifications).
///
/// An element that cannot be read is skipped with the reason the report prints; its
/// `Attachment` children (the prescription's image or PDF, which the export does not include)
/// are reported too.
enum ClinicalExportElements {
    /// Why an element was not imported, as the report prints it.
    struct Skip: Error {
        var reason: String
    }

    /// The children these elements have besides `MetadataEntry`.
    static let childNames: Set<String> = ["SensitivityPoint", "RightEye", "LeftEye", "Attachment"]

    /// The sample an element describes.
    static func sample(_ element: ExportElement, metadata: [String: Any]) -> Result<HKSample, Skip> {
        do {
            switch element.name {
            case "Audiogram": return .success(try audiogram(element, metadata: metadata))
            default: return .success(try visionPrescription(element, metadata: metadata))
            }
        } catch let skip as Skip {
            return .failure(skip)
        } catch {
            return .failure(Skip(reason: "unreadable \(element.name) (\(error))"))
        }
    }

    private static func quantity(_ element: ExportElement, _ attribute: String, unitAttribute: String, default unit: HKUnit,
                                 compatibleWith dimension: HKUnit) throws -> HKQuantity? {
        guard let text = element[attribute], !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw Skip(reason: "\(element.name) with a \(attribute) that is not a number")
        }
        let parsed = element[unitAttribute].flatMap { $0.isEmpty ? nil : try? HKUnit.parse($0) } ?? unit
        let quantity = HKQuantity(unit: parsed, doubleValue: value)
        guard quantity.is(compatibleWith: dimension) else {
            throw Skip(reason: "\(element.name) with a \(attribute) unit that is not \(dimension.unitString)")
        }
        return quantity
    }

    private static func flag(_ text: String?) -> Bool {
        guard let text else { return false }
        return ["1", "true", "yes"].contains(text.lowercased())
    }

    static func audiogram(_ element: ExportElement, metadata: [String: Any]) throws -> HKAudiogramSample {
        guard let start = element["startDate"].flatMap(ExportValues.date), let end = element["endDate"].flatMap(ExportValues.date), end >= start else {
            throw Skip(reason: "Audiogram without a start and end date")
        }
        var points: [HKAudiogramSensitivityPoint] = []
        for child in element.children where child.name == "SensitivityPoint" {
            guard let frequency = try quantity(child, "frequencyValue", unitAttribute: "frequencyUnit", default: .hertz(), compatibleWith: .hertz()) else {
                throw Skip(reason: "Audiogram SensitivityPoint without a frequency")
            }
            var tests: [HKAudiogramSensitivityTest] = []
            for (side, prefix) in [(HKAudiogramSensitivityTestSide.left, "leftEar"), (.right, "rightEar")] {
                guard let sensitivity = try quantity(child, prefix + "Value", unitAttribute: prefix + "Unit", default: .decibelHearingLevel(),
                                                     compatibleWith: .decibelHearingLevel()) else { continue }
                let lower = child[prefix + "ClampingRangeLowerBound"].flatMap(Double.init)
                let upper = child[prefix + "ClampingRangeUpperBound"].flatMap(Double.init)
                let range = lower == nil && upper == nil
                    ? nil : try HKAudiogramSensitivityPointClampingRange(lowerBound: lower.map { NSNumber(value: $0) },
                                                                         upperBound: upper.map { NSNumber(value: $0) })
                tests.append(try HKAudiogramSensitivityTest(sensitivity: sensitivity, type: .air, masked: flag(child[prefix + "Masked"]),
                                                            side: side, clampingRange: range))
            }
            points.append(try HKAudiogramSensitivityPoint(frequency: frequency, tests: tests))
        }
        guard !points.isEmpty else { throw Skip(reason: "Audiogram without sensitivity points") }
        points.sort { $0.frequency.doubleValue(for: .hertz()) < $1.frequency.doubleValue(for: .hertz()) }
        return HKAudiogramSample(sensitivityPoints: points, start: start, end: end, device: element["device"].flatMap(ExportValues.device),
                                 metadata: metadata.isEmpty ? nil : metadata)
    }

    static func visionPrescription(_ element: ExportElement, metadata: [String: Any]) throws -> HKVisionPrescription {
        let typeText = (element["type"] ?? "").lowercased()
        let type: HKVisionPrescriptionType
        if typeText.hasSuffix("contacts") || typeText.hasSuffix("contact") {
            type = .contacts
        } else if typeText.hasSuffix("glasses") {
            type = .glasses
        } else {
            throw Skip(reason: "VisionPrescription of an unknown type")
        }
        guard let issued = element["dateIssued"].flatMap(ExportValues.date) else {
            throw Skip(reason: "VisionPrescription without a dateIssued")
        }
        let expires = element["expirationDate"].flatMap { $0.isEmpty ? nil : ExportValues.date($0) }
        let millimeter = HKUnit.meterUnit(with: .milli)
        func lens(_ name: String) throws -> (sphere: HKQuantity, eye: ExportElement)? {
            guard let eye = element.children.first(where: { $0.name == name }) else { return nil }
            guard let sphere = try quantity(eye, "sphere", unitAttribute: "sphereUnit", default: .diopter(), compatibleWith: .diopter()) else {
                throw Skip(reason: "VisionPrescription \(name) without a sphere")
            }
            return (sphere, eye)
        }
        func common(_ eye: ExportElement) throws -> (HKQuantity?, HKQuantity?, HKQuantity?) {
            (try quantity(eye, "cylinder", unitAttribute: "cylinderUnit", default: .diopter(), compatibleWith: .diopter()),
             try quantity(eye, "axis", unitAttribute: "axisUnit", default: .degreeAngle(), compatibleWith: .degreeAngle()),
             try quantity(eye, "add", unitAttribute: "addUnit", default: .diopter(), compatibleWith: .diopter()))
        }
        let metadata = metadata.isEmpty ? nil : metadata
        switch type {
        case .glasses:
            func glasses(_ name: String, _ side: HKVisionEye) throws -> HKGlassesLensSpecification? {
                guard let (sphere, eye) = try lens(name) else { return nil }
                let (cylinder, axis, add) = try common(eye)
                var prism: HKVisionPrism?
                if let amount = try quantity(eye, "prismAmount", unitAttribute: "prismAmountUnit", default: .prismDiopter(), compatibleWith: .prismDiopter()) {
                    let angle = try quantity(eye, "prismAngle", unitAttribute: "prismAngleUnit", default: .degreeAngle(), compatibleWith: .degreeAngle())
                    prism = HKVisionPrism(amount: amount, angle: angle ?? HKQuantity(unit: .degreeAngle(), doubleValue: 0), eye: side)
                }
                return HKGlassesLensSpecification(
                    sphere: sphere, cylinder: cylinder, axis: axis, addPower: add,
                    vertexDistance: try quantity(eye, "vertex", unitAttribute: "vertexUnit", default: millimeter, compatibleWith: millimeter),
                    prism: prism,
                    farPupillaryDistance: try quantity(eye, "farPD", unitAttribute: "farPDUnit", default: millimeter, compatibleWith: millimeter),
                    nearPupillaryDistance: try quantity(eye, "nearPD", unitAttribute: "nearPDUnit", default: millimeter, compatibleWith: millimeter))
            }
            let right = try glasses("RightEye", .right)
            let left = try glasses("LeftEye", .left)
            if right == nil, left == nil {
                return HKVisionPrescription(type: .glasses, dateIssued: issued, expirationDate: expires, device: nil, metadata: metadata)
            }
            return HKGlassesPrescription(rightEyeSpecification: right, leftEyeSpecification: left, dateIssued: issued,
                                         expirationDate: expires, device: nil, metadata: metadata)
        case .contacts:
            func contacts(_ name: String) throws -> HKContactsLensSpecification? {
                guard let (sphere, eye) = try lens(name) else { return nil }
                let (cylinder, axis, add) = try common(eye)
                return HKContactsLensSpecification(
                    sphere: sphere, cylinder: cylinder, axis: axis, addPower: add,
                    baseCurve: try quantity(eye, "baseCurve", unitAttribute: "baseCurveUnit", default: millimeter, compatibleWith: millimeter),
                    diameter: try quantity(eye, "diameter", unitAttribute: "diameterUnit", default: millimeter, compatibleWith: millimeter))
            }
            let right = try contacts("RightEye")
            let left = try contacts("LeftEye")
            if right == nil, left == nil, element["brand"] == nil {
                return HKVisionPrescription(type: .contacts, dateIssued: issued, expirationDate: expires, device: nil, metadata: metadata)
            }
            return HKContactsPrescription(rightEyeSpecification: right, leftEyeSpecification: left, brand: element["brand"] ?? "",
                                          dateIssued: issued, expirationDate: expires, device: nil, metadata: metadata)
        }
    }
}

extension AppleHealthImporter {
    /// Imports the files of `electrocardiograms/`, each an ``HKElectrocardiogram`` with every
    /// voltage of its lead, recorded under the `ECG` source. A file that cannot be read, or whose
    /// electrocardiogram the store refuses, is skipped with its reason (the rest of the export is valid); one imported before is not
    /// stored again (its sync identifier is the file's digest).
    func importElectrocardiograms(_ container: ExportContainer, into store: HKHealthStore, report: inout AppleHealthImportReport) async throws {
        let revision = HKSourceRevision(source: Self.source(named: "ECG"), version: nil)
        for name in container.electrocardiogramFiles {
            // Read and parsed on a Dispatch thread: file work blocks.
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HKElectrocardiogram, AppleHealthExportError>, Never>) in
                DispatchQueue.global().async {
                    do throws(AppleHealthExportError) {
                        let bytes = try container.read(folder: "electrocardiograms", name: name)
                        let csv = try ElectrocardiogramCSV(bytes)
                        do {
                            continuation.resume(returning: .success(try csv.electrocardiogram(digest: ElectrocardiogramCSV.digest(bytes))))
                        } catch {
                            continuation.resume(returning: .failure(AppleHealthExportError(.invalidElement,
                                                                                           "an electrocardiogram CSV's voltages cannot be stored")))
                        }
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
            switch outcome {
            case .success(let ecg):
                do {
                    report.add(try await store.save([ecg], recordedAs: [revision]))
                } catch let error as HKError where error.code == .errorInvalidArgument {
                    // An electrocardiogram the store refuses (dates beyond year 4000, say) is left out with its reason.
                    report.skip("refused by the store: \(error.message)")
                }
            case .failure(let error):
                if error.kind == .unsafeArchive || error.kind == .malformedArchive { throw error }
                report.skip("electrocardiogram not imported: \(error.detail)" + (error.line.map { " (line \($0))" } ?? ""))
            }
        }
    }
}
