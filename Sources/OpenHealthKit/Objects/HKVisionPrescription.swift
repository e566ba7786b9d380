import Foundation

/// The kind of vision prescription (HealthKit's `HKVisionPrescriptionType`).
public enum HKVisionPrescriptionType: UInt, Sendable, Hashable {
    /// A prescription for glasses.
    case glasses = 1
    /// A prescription for contacts.
    case contacts = 2
}

/// An eye (HealthKit's `HKVisionEye`).
public enum HKVisionEye: Int, Sendable, Hashable {
    /// The left eye.
    case left = 1
    /// The right eye.
    case right = 2
}

/// Where a prism's base is (HealthKit's `HKPrismBase`).
public enum HKPrismBase: Int, Sendable, Hashable {
    /// No prism correction.
    case none = 0
    /// The base is at the top of the lens.
    case up = 1
    /// The base is at the bottom of the lens.
    case down = 2
    /// The base is on the inside edge of the lens.
    case `in` = 3
    /// The base is on the outside edge of the lens.
    case out = 4
}

/// Prescription data for eye alignment (HealthKit's `HKVisionPrism`).
///
/// Given as an amount and an angle, or as vertical and horizontal components; each form is
/// derived from the other (the angle measured from the horizontal, counterclockwise; 0° is base
/// in for the right eye and base out for the left).
public final class HKVisionPrism: NSObject, @unchecked Sendable {
    /// The strength of the correction (`prismDiopter()`).
    public let amount: HKQuantity
    /// The orientation of the correction (`degreeAngle()`).
    public let angle: HKQuantity
    /// The vertical strength (`prismDiopter()`).
    public let verticalAmount: HKQuantity
    /// The orientation of the vertical correction: up or down.
    public let verticalBase: HKPrismBase
    /// The horizontal strength (`prismDiopter()`).
    public let horizontalAmount: HKQuantity
    /// The orientation of the horizontal correction: in or out.
    public let horizontalBase: HKPrismBase
    /// The eye the correction applies to.
    public let eye: HKVisionEye

    /// Creates a prism from an amount and an angle, as HealthKit's `init(amount:angle:eye:)`.
    /// - Parameters:
    ///   - amount: The strength of the correction, in `prismDiopter()` units.
    ///   - angle: The orientation of the adjustment, in `degreeAngle()` units.
    ///   - eye: The eye the correction applies to.
    public init(amount: HKQuantity, angle: HKQuantity, eye: HKVisionEye) {
        self.amount = amount
        self.angle = angle
        self.eye = eye
        let strength = (try? amount.value(in: .prismDiopter())) ?? 0
        let radians = ((try? angle.value(in: .degreeAngle())) ?? 0) * .pi / 180
        let vertical = strength * sin(radians)
        let horizontal = strength * cos(radians)
        verticalAmount = HKQuantity(unit: .prismDiopter(), doubleValue: abs(vertical))
        verticalBase = vertical == 0 ? .none : (vertical > 0 ? .up : .down)
        horizontalAmount = HKQuantity(unit: .prismDiopter(), doubleValue: abs(horizontal))
        let towardNose = eye == .right ? horizontal > 0 : horizontal < 0
        horizontalBase = horizontal == 0 ? .none : (towardNose ? .in : .out)
    }

    /// Creates a prism from vertical and horizontal components, as HealthKit's
    /// `init(verticalAmount:verticalBase:horizontalAmount:horizontalBase:eye:)`.
    /// - Parameters:
    ///   - verticalAmount: The vertical strength, in `prismDiopter()` units.
    ///   - verticalBase: `.up` or `.down`.
    ///   - horizontalAmount: The horizontal strength, in `prismDiopter()` units.
    ///   - horizontalBase: `.in` or `.out`.
    ///   - eye: The eye the correction applies to.
    public init(verticalAmount: HKQuantity, verticalBase: HKPrismBase, horizontalAmount: HKQuantity, horizontalBase: HKPrismBase,
                eye: HKVisionEye) {
        self.verticalAmount = verticalAmount
        self.verticalBase = verticalBase
        self.horizontalAmount = horizontalAmount
        self.horizontalBase = horizontalBase
        self.eye = eye
        let vertical = ((try? verticalAmount.value(in: .prismDiopter())) ?? 0) * (verticalBase == .down ? -1 : 1)
        let inward = horizontalBase == .in
        let horizontalMagnitude = (try? horizontalAmount.value(in: .prismDiopter())) ?? 0
        let horizontal = horizontalMagnitude * ((eye == .right) == inward ? 1 : -1)
        amount = HKQuantity(unit: .prismDiopter(), doubleValue: (vertical * vertical + horizontal * horizontal).squareRoot())
        var degrees = atan2(vertical, horizontal) * 180 / .pi
        if degrees < 0 { degrees += 360 }
        angle = HKQuantity(unit: .degreeAngle(), doubleValue: degrees)
    }
}

/// The prescription data for one eye, common to glasses and contacts (HealthKit's `HKLensSpecification`).
public class HKLensSpecification: NSObject, @unchecked Sendable {
    /// The correction for farsightedness or nearsightedness (`diopter()`).
    public let sphere: HKQuantity
    /// The strength of the correction for astigmatism (`diopter()`).
    public let cylinder: HKQuantity?
    /// The orientation of the correction for astigmatism (`degreeAngle()`).
    public let axis: HKQuantity?
    /// The added power for multifocal lenses (`diopter()`).
    public let addPower: HKQuantity?

    init(sphere: HKQuantity, cylinder: HKQuantity?, axis: HKQuantity?, addPower: HKQuantity?) {
        self.sphere = sphere
        self.cylinder = cylinder
        self.axis = axis
        self.addPower = addPower
    }
}

/// The glasses prescription for one eye (HealthKit's `HKGlassesLensSpecification`).
public final class HKGlassesLensSpecification: HKLensSpecification, @unchecked Sendable {
    /// The distance between the back of the lens and the cornea.
    public let vertexDistance: HKQuantity?
    /// The eye alignment correction.
    public let prism: HKVisionPrism?
    /// The pupillary distance for far vision.
    public let farPupillaryDistance: HKQuantity?
    /// The pupillary distance for near vision.
    public let nearPupillaryDistance: HKQuantity?

    /// Creates a glasses lens specification, as HealthKit's
    /// `init(sphere:cylinder:axis:addPower:vertexDistance:prism:farPupillaryDistance:nearPupillaryDistance:)`.
    /// - Parameters:
    ///   - sphere: The correction for farsightedness, in `diopter()` units.
    ///   - cylinder: The strength of the astigmatism correction, in `diopter()` units.
    ///   - axis: The orientation of the astigmatism correction, in `degreeAngle()` units.
    ///   - addPower: The added power for multifocal lenses, in `diopter()` units.
    ///   - vertexDistance: The distance between the lens and the cornea, a length.
    ///   - prism: The eye alignment correction.
    ///   - farPupillaryDistance: The pupillary distance for far vision, a length.
    ///   - nearPupillaryDistance: The pupillary distance for near vision, a length.
    public init(sphere: HKQuantity, cylinder: HKQuantity?, axis: HKQuantity?, addPower: HKQuantity?, vertexDistance: HKQuantity?,
                prism: HKVisionPrism?, farPupillaryDistance: HKQuantity?, nearPupillaryDistance: HKQuantity?) {
        self.vertexDistance = vertexDistance
        self.prism = prism
        self.farPupillaryDistance = farPupillaryDistance
        self.nearPupillaryDistance = nearPupillaryDistance
        super.init(sphere: sphere, cylinder: cylinder, axis: axis, addPower: addPower)
    }
}

/// The contacts prescription for one eye (HealthKit's `HKContactsLensSpecification`).
public final class HKContactsLensSpecification: HKLensSpecification, @unchecked Sendable {
    /// The curve of the back of the contact, a length.
    public let baseCurve: HKQuantity?
    /// The diameter of the contact, a length.
    public let diameter: HKQuantity?

    /// Creates a contacts lens specification, as HealthKit's `init(sphere:cylinder:axis:addPower:baseCurve:diameter:)`.
    /// - Parameters:
    ///   - sphere: The correction for farsightedness, in `diopter()` units.
    ///   - cylinder: The strength of the astigmatism correction, in `diopter()` units.
    ///   - axis: The orientation of the astigmatism correction, in `degreeAngle()` units.
    ///   - addPower: The added power for multifocal lenses, in `diopter()` units.
    ///   - baseCurve: The curve of the back of the contact, a length.
    ///   - diameter: The diameter of the contact, a length.
    public init(sphere: HKQuantity, cylinder: HKQuantity?, axis: HKQuantity?, addPower: HKQuantity?, baseCurve: HKQuantity?,
                diameter: HKQuantity?) {
        self.baseCurve = baseCurve
        self.diameter = diameter
        super.init(sphere: sphere, cylinder: cylinder, axis: axis, addPower: addPower)
    }
}

/// A vision prescription (HealthKit's `HKVisionPrescription`): on its own, an image-only
/// prescription with its dates; ``HKGlassesPrescription`` and ``HKContactsPrescription`` carry
/// each eye's lens specification. Its start and end dates are the date issued.
///
/// Apps read prescriptions only as the person chooses them, one by one:
/// ``HKHealthStore/requestPerObjectReadAuthorization(for:predicate:)``.
public class HKVisionPrescription: HKSample, @unchecked Sendable {
    /// Glasses or contacts.
    public let prescriptionType: HKVisionPrescriptionType
    /// When the doctor issued the prescription.
    public let dateIssued: Date
    /// When the prescription expires.
    public let expirationDate: Date?

    /// Creates an image-only vision prescription, as HealthKit's `init(type:dateIssued:expirationDate:device:metadata:)`.
    /// - Parameters:
    ///   - type: Glasses or contacts.
    ///   - dateIssued: When the doctor issued the prescription.
    ///   - expirationDate: When it expires.
    ///   - device: The device that generated the sample.
    ///   - metadata: Its metadata.
    public convenience init(type: HKVisionPrescriptionType, dateIssued: Date, expirationDate: Date?, device: HKDevice?,
                            metadata: [String: Any]?) {
        self.init(prescriptionType: type, dateIssued: dateIssued, expirationDate: expirationDate, uuid: UUID(), sourceRevision: nil,
                  device: device, metadata: metadata)
    }

    init(prescriptionType: HKVisionPrescriptionType, dateIssued: Date, expirationDate: Date?, uuid: UUID,
         sourceRevision: HKSourceRevision?, device: HKDevice?, metadata: [String: Any]?) {
        self.prescriptionType = prescriptionType
        self.dateIssued = dateIssued
        self.expirationDate = expirationDate
        super.init(sampleType: HKPrescriptionType(), startDate: dateIssued, endDate: dateIssued, uuid: uuid,
                   sourceRevision: sourceRevision, device: device, metadata: metadata)
    }
}

/// A prescription for glasses (HealthKit's `HKGlassesPrescription`).
public final class HKGlassesPrescription: HKVisionPrescription, @unchecked Sendable {
    /// The lens specification for the right eye.
    public let rightEye: HKGlassesLensSpecification?
    /// The lens specification for the left eye.
    public let leftEye: HKGlassesLensSpecification?

    /// Creates a glasses prescription, as HealthKit's
    /// `init(rightEyeSpecification:leftEyeSpecification:dateIssued:expirationDate:device:metadata:)`.
    /// - Parameters:
    ///   - rightEyeSpecification: The lens specification for the right eye.
    ///   - leftEyeSpecification: The lens specification for the left eye.
    ///   - dateIssued: When the doctor issued the prescription.
    ///   - expirationDate: When it expires.
    ///   - device: The device that generated the sample.
    ///   - metadata: Its metadata.
    public convenience init(rightEyeSpecification: HKGlassesLensSpecification?, leftEyeSpecification: HKGlassesLensSpecification?,
                            dateIssued: Date, expirationDate: Date?, device: HKDevice?, metadata: [String: Any]?) {
        self.init(right: rightEyeSpecification, left: leftEyeSpecification, dateIssued: dateIssued, expirationDate: expirationDate,
                  uuid: UUID(), sourceRevision: nil, device: device, metadata: metadata)
    }

    init(right: HKGlassesLensSpecification?, left: HKGlassesLensSpecification?, dateIssued: Date, expirationDate: Date?, uuid: UUID,
         sourceRevision: HKSourceRevision?, device: HKDevice?, metadata: [String: Any]?) {
        rightEye = right
        leftEye = left
        super.init(prescriptionType: .glasses, dateIssued: dateIssued, expirationDate: expirationDate, uuid: uuid,
                   sourceRevision: sourceRevision, device: device, metadata: metadata)
    }
}

/// A prescription for contacts (HealthKit's `HKContactsPrescription`).
public final class HKContactsPrescription: HKVisionPrescription, @unchecked Sendable {
    /// The lens specification for the right eye.
    public let rightEye: HKContactsLensSpecification?
    /// The lens specification for the left eye.
    public let leftEye: HKContactsLensSpecification?
    /// The prescribed brand.
    public let brand: String

    /// Creates a contacts prescription, as HealthKit's
    /// `init(rightEyeSpecification:leftEyeSpecification:brand:dateIssued:expirationDate:device:metadata:)`.
    /// - Parameters:
    ///   - rightEyeSpecification: The lens specification for the right eye.
    ///   - leftEyeSpecification: The lens specification for the left eye.
    ///   - brand: The prescribed brand.
    ///   - dateIssued: When the doctor issued the prescription.
    ///   - expirationDate: When it expires.
    ///   - device: The device that generated the sample.
    ///   - metadata: Its metadata.
    public convenience init(rightEyeSpecification: HKContactsLensSpecification?, leftEyeSpecification: HKContactsLensSpecification?,
                            brand: String, dateIssued: Date, expirationDate: Date?, device: HKDevice?, metadata: [String: Any]?) {
        self.init(right: rightEyeSpecification, left: leftEyeSpecification, brand: brand, dateIssued: dateIssued,
                  expirationDate: expirationDate, uuid: UUID(), sourceRevision: nil, device: device, metadata: metadata)
    }

    init(right: HKContactsLensSpecification?, left: HKContactsLensSpecification?, brand: String, dateIssued: Date, expirationDate: Date?,
         uuid: UUID, sourceRevision: HKSourceRevision?, device: HKDevice?, metadata: [String: Any]?) {
        rightEye = right
        leftEye = left
        self.brand = brand
        super.init(prescriptionType: .contacts, dateIssued: dateIssued, expirationDate: expirationDate, uuid: uuid,
                   sourceRevision: sourceRevision, device: device, metadata: metadata)
    }
}

/// A vision prescription in a sealed payload's extra section (JSON): diopters, degrees,
/// prism diopters and millimetres.
struct VisionPrescriptionDetails: Codable {
    struct Prism: Codable {
        var verticalAmount: Double
        var verticalBase: Int
        var horizontalAmount: Double
        var horizontalBase: Int
        var eye: Int
    }

    struct Lens: Codable {
        var sphere: Double
        var cylinder: Double?
        var axis: Double?
        var addPower: Double?
        var vertexDistance: Double?
        var prism: Prism?
        var farPupillaryDistance: Double?
        var nearPupillaryDistance: Double?
        var baseCurve: Double?
        var diameter: Double?
    }

    /// 0 image-only, 1 glasses, 2 contacts: the class read back.
    var form: Int
    var type: UInt
    var expirationDate: Double?
    var brand: String?
    var right: Lens?
    var left: Lens?

    private static func value(_ quantity: HKQuantity?, _ unit: HKUnit, _ name: String) throws -> Double? {
        guard let quantity else { return nil }
        guard quantity.is(compatibleWith: unit), let value = try? quantity.value(in: unit), value.isFinite else {
            throw HKError(.errorInvalidArgument, "a lens specification's \(name) must be a finite quantity compatible with \(unit.unitString)")
        }
        return value
    }

    private static func lens(_ spec: HKLensSpecification?) throws -> Lens? {
        guard let spec else { return nil }
        let millimeter = HKUnit.meterUnit(with: .milli)
        var lens = Lens(sphere: try value(spec.sphere, .diopter(), "sphere") ?? 0, cylinder: try value(spec.cylinder, .diopter(), "cylinder"),
                        axis: try value(spec.axis, .degreeAngle(), "axis"), addPower: try value(spec.addPower, .diopter(), "add power"))
        if let glasses = spec as? HKGlassesLensSpecification {
            lens.vertexDistance = try value(glasses.vertexDistance, millimeter, "vertex distance")
            lens.farPupillaryDistance = try value(glasses.farPupillaryDistance, millimeter, "far pupillary distance")
            lens.nearPupillaryDistance = try value(glasses.nearPupillaryDistance, millimeter, "near pupillary distance")
            if let prism = glasses.prism {
                lens.prism = Prism(verticalAmount: try value(prism.verticalAmount, .prismDiopter(), "prism") ?? 0,
                                   verticalBase: prism.verticalBase.rawValue,
                                   horizontalAmount: try value(prism.horizontalAmount, .prismDiopter(), "prism") ?? 0,
                                   horizontalBase: prism.horizontalBase.rawValue, eye: prism.eye.rawValue)
            }
        }
        if let contacts = spec as? HKContactsLensSpecification {
            lens.baseCurve = try value(contacts.baseCurve, millimeter, "base curve")
            lens.diameter = try value(contacts.diameter, millimeter, "diameter")
        }
        return lens
    }

    init(_ prescription: HKVisionPrescription) throws {
        type = prescription.prescriptionType.rawValue
        expirationDate = prescription.expirationDate?.timeIntervalSinceReferenceDate
        if let expirationDate, !(expirationDate.isFinite && expirationDate >= prescription.dateIssued.timeIntervalSinceReferenceDate) {
            throw HKError(.errorInvalidArgument, "a prescription's expiration date must not be before the date it was issued")
        }
        switch prescription {
        case let glasses as HKGlassesPrescription:
            form = 1
            right = try Self.lens(glasses.rightEye)
            left = try Self.lens(glasses.leftEye)
        case let contacts as HKContactsPrescription:
            form = 2
            brand = contacts.brand
            right = try Self.lens(contacts.rightEye)
            left = try Self.lens(contacts.leftEye)
        default:
            form = 0
        }
    }

    func makeSample(issued: Date, uuid: UUID, revision: HKSourceRevision, device: HKDevice?, metadata: [String: Any]?) throws
        -> HKVisionPrescription {
        let millimeter = HKUnit.meterUnit(with: .milli)
        func quantity(_ value: Double?, _ unit: HKUnit) -> HKQuantity? { value.map { HKQuantity(unit: unit, doubleValue: $0) } }
        func glasses(_ lens: Lens?) throws -> HKGlassesLensSpecification? {
            guard let lens else { return nil }
            var prism: HKVisionPrism?
            if let stored = lens.prism {
                guard let vertical = HKPrismBase(rawValue: stored.verticalBase), let horizontal = HKPrismBase(rawValue: stored.horizontalBase),
                      let eye = HKVisionEye(rawValue: stored.eye) else {
                    throw HealthStoreError(.corruptDatabase, "a sealed prescription has an unknown prism")
                }
                prism = HKVisionPrism(verticalAmount: HKQuantity(unit: .prismDiopter(), doubleValue: stored.verticalAmount), verticalBase: vertical,
                                      horizontalAmount: HKQuantity(unit: .prismDiopter(), doubleValue: stored.horizontalAmount),
                                      horizontalBase: horizontal, eye: eye)
            }
            return HKGlassesLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: lens.sphere), cylinder: quantity(lens.cylinder, .diopter()),
                                              axis: quantity(lens.axis, .degreeAngle()), addPower: quantity(lens.addPower, .diopter()),
                                              vertexDistance: quantity(lens.vertexDistance, millimeter), prism: prism,
                                              farPupillaryDistance: quantity(lens.farPupillaryDistance, millimeter),
                                              nearPupillaryDistance: quantity(lens.nearPupillaryDistance, millimeter))
        }
        func contacts(_ lens: Lens?) -> HKContactsLensSpecification? {
            guard let lens else { return nil }
            return HKContactsLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: lens.sphere), cylinder: quantity(lens.cylinder, .diopter()),
                                               axis: quantity(lens.axis, .degreeAngle()), addPower: quantity(lens.addPower, .diopter()),
                                               baseCurve: quantity(lens.baseCurve, millimeter), diameter: quantity(lens.diameter, millimeter))
        }
        guard let prescriptionType = HKVisionPrescriptionType(rawValue: type) else {
            throw HealthStoreError(.corruptDatabase, "a sealed prescription has an unknown type")
        }
        let expires = expirationDate.map { Date(timeIntervalSinceReferenceDate: $0) }
        switch form {
        case 1:
            return HKGlassesPrescription(right: try glasses(right), left: try glasses(left), dateIssued: issued, expirationDate: expires,
                                         uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        case 2:
            return HKContactsPrescription(right: contacts(right), left: contacts(left), brand: brand ?? "", dateIssued: issued,
                                          expirationDate: expires, uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        default:
            return HKVisionPrescription(prescriptionType: prescriptionType, dateIssued: issued, expirationDate: expires, uuid: uuid,
                                        sourceRevision: revision, device: device, metadata: metadata)
        }
    }
}
