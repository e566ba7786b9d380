import AppleHealthExport
import ArgumentParser
import Crypto
import Foundation
import HealthPresentation
import OpenHealthKit

/// `health store add`: saves one sample described by flags.
struct StoreAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Save one sample.",
        discussion: """
            Types and units by everyday names (`health store types` lists them) or HealthKit's.
            A category value by name (asleepDeep, "Deep sleep") or number; a percentage in
            percent (--type body-fat --value 20.5 is 20.5 %). A number without a unit is in the
            unit the value is shown in (the owner's choice on the page's Settings, else cm for
            height, km for distances, kg for weight); blood glucose needs its unit, mg/dL or
            mmol/L, unless the owner chose one. What was saved is printed with its unit.

            Examples:
              health store add --type weight --value 70.5 --unit kg
              health store add --type steps --value 1200 --start 2026-11-20T08:00 --end 2026-11-20T09:00
              health store add --type heart-rate --value 72 --unit bpm
              health store add --type glucose --value 5.4 --unit mmol/L
              health store add --type temperature --value 36.8 --unit °C
              health store add --type blood-pressure --value 120/80
              health store add --type sleep --value "Deep sleep" --start 2026-11-20T01:00 --end 2026-11-20T02:30
              health store add --type workout --activity running --start 2026-11-20T07:00 --end 2026-11-20T07:40 --energy 420 --distance "6.5 km"
              health store add --type state-of-mind --kind daily-mood --value 0.4 --labels content,grateful --associations family
              health store add --type gad7 --answers 1,0,2,1,0,0,1
              health store add --type phq9 --answers 0,1,1,0,0,2,0,0,prefer-not-to-answer
              health store add --type audiogram --points 500:20/25,1000:15/20,4000:-/40
              health store add --type vision-prescription --right=-1.25/-0.5/90 --left=-1/-0.25/85 --expires 2028-11-20
              health store add --type ecg --file ecg_2026-11-20.csv
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The type: weight, steps, heart-rate, blood-pressure, sleep, glucose, workout… or a HealthKit name (see `health store types`).")
    var type: String

    @Option(help: ArgumentHelp("The value: a quantity (in --unit, or with its unit: '70 kg'), a category value's name or number, "
                                   + "or systolic/diastolic for blood pressure.",
                               valueName: "value"))
    var value: String?

    @Option(help: ArgumentHelp("The unit of --value (default: the unit the type is shown in; required for glucose), "
                                   + "e.g. kg, lb, st, bpm, mmol/L, mg/dL, °C, °F, %, km, mi, kcal, kJ."))
    var unit: String?

    @Option(help: "When the sample starts (ISO 8601; default: now).")
    var start: String?

    @Option(help: "When the sample ends (default: the start).")
    var end: String?

    @Option(help: "For workouts: the activity (running, walking, cycling…).")
    var activity: String?

    @Option(help: "For workouts: active energy, in kcal or with its unit ('1750 kJ').")
    var energy: String?

    @Option(help: "For workouts: distance with its unit ('6.5 km', '3.1 mi'); a number alone is in meters.")
    var distance: String?

    @Option(help: "For a state of mind: momentary-emotion (the default) or daily-mood; --value is its valence, -1 to 1.")
    var kind: String?

    @Option(help: "For a state of mind: feelings, comma-separated (happy,grateful; a name it does not know is refused with the list).")
    var labels: String?

    @Option(help: "For a state of mind: what it is about, comma-separated (family,work,self-care).")
    var associations: String?

    @Option(help: "For GAD-7 (7) or PHQ-9 (9): the answers, comma-separated, each 0-3 or not-at-all … nearly-every-day.")
    var answers: String?

    @Option(help: ArgumentHelp("For an audiogram: points HZ:LEFT/RIGHT in dB HL, comma-separated ('-' for an ear not tested).",
                               valueName: "points"))
    var points: String?

    @Option(help: ArgumentHelp("For a vision prescription: the right lens, SPHERE[/CYLINDER/AXIS[/ADD]] (diopters, degrees).", valueName: "lens"))
    var right: String?

    @Option(help: ArgumentHelp("For a vision prescription: the left lens, as --right.", valueName: "lens"))
    var left: String?

    @Option(help: "For a vision prescription: the contact lenses' brand (a prescription for contacts; without it, for glasses).")
    var brand: String?

    @Option(help: "For a vision prescription: when it expires (ISO 8601); --start is when it was issued.")
    var expires: String?

    @Option(help: ArgumentHelp("For an electrocardiogram: its CSV file as the Health app exports it (electrocardiograms/ecg_….csv).",
                               valueName: "path"))
    var file: String?

    @Option(name: .customLong("metadata"), help: "Metadata as key=value (repeatable); numbers and true/false are typed.")
    var metadata: [String] = []

    @Option(help: ArgumentHelp("Sign the sample with this device key (PEM, mode 0600; see `health store device-keys generate`).",
                               valueName: "KEY.pem"))
    var signWith: String?

    mutating func run() async throws {
        let sampleType = try parseSampleType(type)
        let startDate = try start.map(parseDate) ?? Date()
        let endDate = try end.map(parseDate) ?? startDate
        guard endDate >= startDate else { throw ValidationError("--end is before --start") }
        let metadata = try parseMetadata(self.metadata)
        let store = try storeOptions.openStore()
        // Numbers without a unit are read in the units the owner sees (Settings on the page).
        let formatter = try await HealthFormatter.forStore(store, types: [sampleType])
        var typedUnit: HKUnit?
        let sample: HKSample
        // An electrocardiogram is recorded as an Apple Health import records it (its source and
        // sync identifier), so the file and the export it came from are one recording.
        var importedAs: HKSourceRevision?
        switch sampleType {
        case let quantityType as HKQuantityType:
            guard let value else { throw ValidationError("--value is required for \(sampleType.displayName)") }
            let quantity: HKQuantity
            do {
                typedUnit = try HealthInput.unit(of: value, unit: unit, for: quantityType, formatter: formatter)
                quantity = try HealthInput.quantity(value, unit: unit, for: quantityType, formatter: formatter)
            } catch {
                throw ValidationError(error.description)
            }
            sample = HKQuantitySample(type: quantityType, quantity: quantity, start: startDate, end: endDate, metadata: metadata)
        case let categoryType as HKCategoryType:
            let raw: Int
            if let value {
                do {
                    raw = try CategoryValues.value(value, for: categoryType)
                } catch {
                    // A value the type does not take is refused (1), as the store refuses it.
                    throw InputRefused(error.description)
                }
            } else if CategoryValues.isValueless(categoryType) {
                raw = HKCategoryValue.notApplicable.rawValue
            } else {
                let names = CategoryValues.values(for: categoryType)?.map(\.name).joined(separator: ", ") ?? "its value's number"
                throw ValidationError("--value is required for \(sampleType.displayName): one of \(names)")
            }
            sample = HKCategorySample(type: categoryType, value: raw, start: startDate, end: endDate, metadata: metadata)
        case let correlationType as HKCorrelationType where correlationType.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue:
            guard let value else { throw ValidationError("--value is required for blood pressure: systolic/diastolic in mmHg, e.g. 120/80") }
            if let unit, (try? parseUnit(unit)) != .millimeterOfMercury() {
                throw ValidationError("blood pressure is written in mmHg, not '\(unit)'")
            }
            let reading: (systolic: HKQuantity, diastolic: HKQuantity)
            do {
                reading = try HealthInput.bloodPressure(value)
            } catch {
                throw ValidationError(error.description)
            }
            let objects: Set<HKSample> = [
                HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: reading.systolic, start: startDate, end: endDate),
                HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: reading.diastolic, start: startDate, end: endDate),
            ]
            sample = HKCorrelation(type: correlationType, start: startDate, end: endDate, objects: objects, metadata: metadata)
        case is HKWorkoutType:
            guard let activityName = activity, let activityType = HKWorkoutActivityType(name: activityName) else {
                throw ValidationError("--activity is required for workouts, e.g. running, walking, cycling")
            }
            let energyType = HKQuantityType(.activeEnergyBurned), distanceType = HKQuantityType(.distanceWalkingRunning)
            let totalEnergy: HKQuantity?, totalDistance: HKQuantity?
            do {
                totalEnergy = try energy.map { text throws(HealthPresentationError) in
                    try HealthInput.quantity(text, unit: HealthInput.split(text).unit.isEmpty ? "kcal" : nil, for: energyType)
                }
                totalDistance = try distance.map { text throws(HealthPresentationError) in
                    try HealthInput.quantity(text, unit: HealthInput.split(text).unit.isEmpty ? "m" : nil, for: distanceType)
                }
            } catch {
                throw ValidationError(error.description)
            }
            sample = HKWorkout(activityType: activityType, start: startDate, end: endDate, workoutEvents: nil,
                               totalEnergyBurned: totalEnergy, totalDistance: totalDistance, metadata: metadata)
        case is HKStateOfMindType:
            sample = try MeasurementInput.stateOfMind(value: value, kind: kind, labels: labels, associations: associations, at: startDate,
                                                      metadata: metadata)
        case let assessmentType as HKScoredAssessmentType:
            sample = try MeasurementInput.assessment(assessmentType, answers: answers, at: startDate, metadata: metadata)
        case is HKAudiogramSampleType:
            sample = try MeasurementInput.audiogram(points: points, start: startDate, end: endDate, metadata: metadata)
        case is HKPrescriptionType:
            sample = try MeasurementInput.prescription(right: right, left: left, brand: brand, issued: startDate,
                                                       expires: try expires.map(parseDate), metadata: metadata)
        case is HKElectrocardiogramType:
            sample = try Self.electrocardiogram(file: file, metadata: metadata)
            importedAs = HKSourceRevision(source: AppleHealthImporter.source(named: "ECG"), version: nil)
        default:
            throw ValidationError("\(sampleType.displayName) samples cannot be added from the command line")
        }
        let saved = try signWith.map { path in try Self.sign(sample, with: loadDeviceKey(path)) } ?? sample
        if let importedAs {
            let counts = try await store.save([saved], recordedAs: [importedAs])
            if counts.storedCount == 0, counts.replacedCount == 0 {
                print("Already in the store: \(SampleFormatter.valueText(saved, unit: nil, formatter: formatter))")
                return
            }
        } else {
            try await store.save(saved)
        }
        // The value in the unit it was read in (glucose typed in mmol/L is shown in mmol/L; 180 for
        // height as 180 cm), so the person sees which unit a number without one was taken in.
        print("Saved \(saved.uuid.uuidString): \(SampleFormatter.valueText(saved, unit: typedUnit, formatter: formatter))")
    }

    /// The recording of an exported ECG file, with `metadata` added to the file's own.
    private static func electrocardiogram(file: String?, metadata: [String: Any]?) throws -> HKElectrocardiogram {
        guard let file else { throw ValidationError("--file is required for an electrocardiogram: its CSV as the Health app exports it") }
        let url = URL(fileURLWithPath: file)
        let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        guard size <= ElectrocardiogramFile.maximumBytes else {
            throw ValidationError("\(file) is larger than an electrocardiogram CSV can be (\(ElectrocardiogramFile.maximumBytes >> 20) MB)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ValidationError("cannot read \(file): \((error as NSError).localizedDescription)")
        }
        do {
            return try ElectrocardiogramFile.electrocardiogram(data, metadata: metadata)
        } catch {
            throw ValidationError("\(file): \(error.description)")
        }
    }

    /// The sample with a device signature in its metadata.
    private static func sign(_ sample: HKSample, with key: P256.Signing.PrivateKey) throws -> HKSample {
        switch sample {
        case let quantity as HKQuantitySample: return try quantity.signed(with: key)
        case let category as HKCategorySample: return try category.signed(with: key)
        default: throw ValidationError("--sign-with signs quantity and category samples only")
        }
    }
}

/// Parses `key=value` metadata; `true`/`false` and numbers are typed.
func parseMetadata(_ pairs: [String]) throws -> [String: Any]? {
    guard !pairs.isEmpty else { return nil }
    var result: [String: Any] = [:]
    for pair in pairs {
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
            throw ValidationError("metadata '\(pair)' must be key=value")
        }
        let key = String(pair[..<equals])
        let text = String(pair[pair.index(after: equals)...])
        if text == "true" || text == "false" {
            result[key] = text == "true"
        } else if let number = Int(text) {
            result[key] = number
        } else if let number = Double(text), number.isFinite {
            result[key] = number
        } else {
            result[key] = text
        }
    }
    return result
}
