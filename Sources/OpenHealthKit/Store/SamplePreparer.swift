import CommonSupport
import Foundation
import Synchronization

/// Validates HealthKit objects as HealthKit does before a save, converts quantities to their
/// type's canonical unit, and seals what must not be stored in the clear.
struct SamplePreparer {
    let cipher: RecordCipher
    let bundleIdentifier: String
    /// The device encoded last: an import's samples share a few device objects.
    let devices = DeviceEncodings()

    private static let encoder = JSONEncoder()

    /// The dates a sample may have, in reference-date seconds: `Date.distantPast` (year 1)
    /// through `Date.distantFuture` (4001-01-01T00:00:00Z), the range the statistics engine's
    /// interval grid computes boundaries in (``StatisticsIntervalGrid/supportedRange``). Dates
    /// beyond are refused: a year like 99999 is a typing error, not a measurement, and a sample
    /// there could be saved but never summed.
    static let dateRange = StatisticsIntervalGrid.supportedRange

    /// The quantity types that are absolute temperatures (a body, basal body or water
    /// temperature): a value below absolute zero is refused. The sleeping wrist temperature is
    /// left out (it is read as a deviation from a baseline).
    static let absoluteTemperatureTypes: Set<String> = [
        HKQuantityTypeIdentifier.bodyTemperature.rawValue, HKQuantityTypeIdentifier.basalBodyTemperature.rawValue,
        HKQuantityTypeIdentifier.waterTemperature.rawValue,
    ]

    func prepare(_ object: HKObject) throws -> PreparedSample {
        try prepare(object, knownSyncHash: nil)
    }

    /// - Parameter knownSyncHash: the keyed hash of the sample's sync identifier for this preparer's source, when a lookup
    ///   computed it (``HKHealthStore/storedSyncHashes(of:)``); used only when it is of the identifier the metadata gives.
    func prepare(_ object: HKObject, knownSyncHash: HKHealthStore.KnownSyncHash?) throws -> PreparedSample {
        guard let sample = object as? HKSample else {
            throw HKError(.errorInvalidArgument, "only samples can be saved")
        }
        let start = sample.startDate.timeIntervalSinceReferenceDate
        let end = sample.endDate.timeIntervalSinceReferenceDate
        guard start.isFinite, end.isFinite, end >= start else {
            throw HKError(.errorInvalidArgument, "\(sample.sampleType.identifier): the end date is before the start date")
        }
        guard Self.dateRange.contains(start), Self.dateRange.contains(end) else {
            throw HKError(.errorInvalidArgument,
                          "\(sample.sampleType.identifier): a sample's dates must lie between years 1 and 4000 (Date.distantPast and Date.distantFuture)")
        }
        let metadataValues = try sample.metadata.map(MetadataCodec.values) ?? [:]
        // Metadata sealed in binary without a JSON check (an import's: text and whole numbers, see `compactBinary`) is not
        // encoded as JSON, which the sealed record would not keep: its payload only marks that it has metadata. A health
        // record keeps its JSON.
        let keepsJSON = sample is HKClinicalRecord || sample is HKVerifiableClinicalRecord
        let plainBinary = metadataValues.isEmpty || keepsJSON ? nil : MetadataCodec.compactBinary(metadataValues, json: nil)
        let metadata = metadataValues.isEmpty ? nil : plainBinary != nil ? Data() : try MetadataCodec.encode(metadataValues)
        let preparedDevice = try sample.device.map { try devices.prepared($0, cipher: cipher) }
        let device = preparedDevice?.json
        let kind: SampleKind
        var payload: SamplePayload
        var activityType: Int64?
        var members: [PreparedSample] = []
        var healthRecordKey: Data?
        /// For a kind replaced by its key: a version derived from its content, so that saving the same content again stores nothing.
        var contentVersion: Int64?
        var routeBlocks: [RouteBlock] = []
        var workoutLink: PreparedWorkoutLink?

        switch sample {
        case let series as PendingQuantitySeries:
            // One row for the series, one hidden member row per quantity (counted by statistics).
            guard series.quantityType.isKnown else {
                throw HKError(.errorInvalidArgument, "\(series.sampleType.identifier) is not a quantity type OpenHealthKit knows")
            }
            members = try series.entries.map { entry in
                try prepare(HKQuantitySample(type: series.quantityType, quantity: entry.quantity, start: entry.dateInterval.start,
                                             end: entry.dateInterval.end, device: series.device, metadata: series.metadata))
            }
            kind = .quantitySeries
            payload = SamplePayload(double: try series.quantity.value(in: series.quantityType.canonicalUnit), metadata: metadata,
                                    device: device, extra: try Self.encoder.encode(QuantitySeriesExtra(series)))
        case let heartbeats as HKHeartbeatSeriesSample:
            guard let beats = heartbeats.pendingBeats else {
                throw HKError(.errorInvalidArgument, "a heartbeat series is saved by an HKHeartbeatSeriesBuilder")
            }
            try HeartbeatCodec.validate(beats)
            kind = .heartbeatSeries
            payload = SamplePayload(integer: Int64(beats.count), metadata: metadata, device: device, extra: HeartbeatCodec.encode(beats))
        case let quantitySample as HKQuantitySample:
            let type = quantitySample.quantityType
            guard type.isKnown else {
                throw HKError(.errorInvalidArgument, "\(type.identifier) is not a quantity type OpenHealthKit knows")
            }
            guard type.is(compatibleWith: quantitySample.quantity.storedUnit) else {
                throw HKError(.errorInvalidArgument,
                              "\(type.identifier): unit \(quantitySample.quantity.storedUnit.unitString) "
                                + "is not compatible with \(type.canonicalUnit.unitString)")
            }
            guard let value = try? quantitySample.quantity.value(in: type.canonicalUnit), value.isFinite else {
                throw HKError(.errorInvalidArgument, "\(type.identifier): the quantity is not finite in \(type.canonicalUnit.unitString)")
            }
            if Self.absoluteTemperatureTypes.contains(type.identifier), let kelvin = try? quantitySample.quantity.value(in: .kelvin()), kelvin < 0 {
                throw HKError(.errorInvalidArgument, "\(type.identifier): a temperature cannot be below absolute zero (0 K, -273.15 degC)")
            }
            var details = QuantityExtra(count: quantitySample.count == 1 ? nil : quantitySample.count)
            let unit = quantitySample.quantity.storedUnit
            if !unit.isSameUnit(as: type.canonicalUnit) {
                details.originalValue = quantitySample.quantity.storedValue
                details.originalUnit = unit.unitString
            }
            let extra = details.isEmpty ? nil : details.encoded()
            kind = .quantity
            payload = SamplePayload(double: value, metadata: metadata, device: device, extra: extra)
        case let categorySample as HKCategorySample:
            let identifier = HKCategoryTypeIdentifier(rawValue: categorySample.sampleType.identifier)
            guard let allowed = CategoryTypeCatalog.allowedValues(for: identifier) else {
                throw HKError(.errorInvalidArgument, "\(identifier.rawValue) is not a category type OpenHealthKit knows")
            }
            guard allowed.contains(categorySample.value) else {
                throw HKError(.errorInvalidArgument, "\(identifier.rawValue): the value is not one of the type's values")
            }
            kind = .category
            payload = SamplePayload(integer: Int64(categorySample.value), metadata: metadata, device: device)
        case let correlation as HKCorrelation:
            guard HKCorrelationType.known.contains(HKCorrelationTypeIdentifier(rawValue: correlation.sampleType.identifier)) else {
                throw HKError(.errorInvalidArgument, "\(correlation.sampleType.identifier) is not a correlation type")
            }
            guard !correlation.objects.isEmpty else {
                throw HKError(.errorInvalidArgument, "\(correlation.sampleType.identifier): a correlation needs at least one sample")
            }
            let allowed = correlation.correlationType.memberTypes
            for member in correlation.objects {
                guard member is HKQuantitySample || member is HKCategorySample else {
                    throw HKError(.errorInvalidArgument, "a correlation may hold only quantity and category samples")
                }
                if !allowed.contains(member.sampleType.identifier) {
                    throw HKError(.errorInvalidArgument, "\(correlation.sampleType.identifier) cannot hold \(member.sampleType.identifier)")
                }
                members.append(try prepare(member))
            }
            kind = .correlation
            payload = SamplePayload(integer: 0, metadata: metadata, device: device)
        case let workout as HKWorkout:
            func total(_ quantity: HKQuantity?, _ unit: HKUnit, _ name: String) throws -> Double? {
                guard let quantity else { return nil }
                guard let value = try? quantity.value(in: unit), value.isFinite else {
                    throw HKError(.errorInvalidArgument, "workout \(name) must be a finite quantity compatible with \(unit.unitString)")
                }
                return value
            }
            guard workout.duration >= 0, workout.duration.isFinite else {
                throw HKError(.errorInvalidArgument, "a workout's duration must be zero or more")
            }
            // DateInterval guarantees end >= start, so events read back are valid too.
            let events = try workout.workoutEvents?.map(WorkoutExtra.Event.init)
            let extra = WorkoutExtra(duration: workout.duration,
                                     energyKilocalories: try total(workout.totalEnergyBurned, .kilocalorie(), "energy"),
                                     distanceMeters: try total(workout.totalDistance, .meter(), "distance"),
                                     swimmingStrokes: try total(workout.totalSwimmingStrokeCount, .count(), "stroke count"),
                                     flightsClimbed: try total(workout.totalFlightsClimbed, .count(), "flights climbed"),
                                     events: events,
                                     activities: workout.storedActivities.isEmpty ? nil : try workout.storedActivities.map(WorkoutActivityRecord.init),
                                     statistics: WorkoutStatisticsRecord.records(workout.storedStatistics))
            kind = .workout
            activityType = Int64(workout.workoutActivityType.rawValue)
            payload = SamplePayload(integer: 0, metadata: metadata, device: device, extra: try Self.encoder.encode(extra))
        case let mind as HKStateOfMind:
            guard mind.valence.isFinite, (-1.0...1.0).contains(mind.valence) else {
                throw HKError(.errorInvalidArgument, "a state of mind's valence must be between -1 and 1")
            }
            let details = StateOfMindDetails(kind: mind.kind.rawValue, labels: mind.labels.map(\.rawValue),
                                             associations: mind.associations.map(\.rawValue))
            kind = .stateOfMind
            payload = SamplePayload(double: mind.valence, metadata: metadata, device: device, extra: try Self.encoder.encode(details))
        case let assessment as HKScoredAssessment:
            let answers: [Int]
            switch assessment {
            case let gad7 as HKGAD7Assessment:
                guard gad7.answers.count == 7 else {
                    throw HKError(.errorInvalidArgument, "a GAD-7 assessment needs exactly 7 answers, not \(gad7.answers.count)")
                }
                answers = gad7.answers.map(\.rawValue)
            case let phq9 as HKPHQ9Assessment:
                guard phq9.answers.count == 9 else {
                    throw HKError(.errorInvalidArgument, "a PHQ-9 assessment needs exactly 9 answers, not \(phq9.answers.count)")
                }
                guard !phq9.answers.dropLast().contains(.preferNotToAnswer) else {
                    throw HKError(.errorInvalidArgument, "only the ninth PHQ-9 question may be answered preferNotToAnswer")
                }
                answers = phq9.answers.map(\.rawValue)
            default:
                throw HKError(.errorInvalidArgument, "\(assessment.sampleType.identifier) samples cannot be saved")
            }
            kind = .scoredAssessment
            payload = SamplePayload(integer: Int64(assessment.score), metadata: metadata, device: device,
                                    extra: try Self.encoder.encode(ScoredAssessmentDetails(answers: answers)))
        case let ecg as HKElectrocardiogram:
            kind = .electrocardiogram
            payload = SamplePayload(integer: Int64(ecg.numberOfVoltageMeasurements), metadata: metadata, device: device,
                                    extra: try ElectrocardiogramDetails(ecg).encoded())
        case let audiogram as HKAudiogramSample:
            kind = .audiogram
            payload = SamplePayload(integer: Int64(audiogram.sensitivityPoints.count), metadata: metadata, device: device,
                                    extra: try Self.encoder.encode(AudiogramDetails(audiogram)))
        case let prescription as HKVisionPrescription:
            kind = .visionPrescription
            payload = SamplePayload(integer: Int64(prescription.prescriptionType.rawValue), metadata: metadata, device: device,
                                    extra: try Self.encoder.encode(VisionPrescriptionDetails(prescription)))
        case let dose as HKMedicationDoseEvent:
            kind = .medicationDoseEvent
            payload = SamplePayload(integer: Int64(dose.logStatus.rawValue), metadata: metadata, device: device,
                                    extra: try Self.encoder.encode(MedicationDoseDetails(dose)))
        case let route as HKWorkoutRoute:
            guard let locations = route.pendingLocations, let link = route.workoutLink else {
                throw HKError(.errorInvalidArgument, "a workout route is saved by an HKWorkoutRouteBuilder")
            }
            try RouteBlock.validate(locations)
            routeBlocks = try RouteBlock.seal(locations, route: route.uuid, cipher: cipher)
            switch link {
            case .uuid(let uuid, let source): workoutLink = .uuid(uuid.databaseBlob, requiredSource: source)
            case .syncIdentifier(let identifier, let bundle): workoutLink = .syncHash(cipher.indexHash("sync", bundle, identifier))
            }
            kind = .workoutRoute
            payload = SamplePayload(integer: Int64(locations.count), metadata: metadata, device: device)
        case let record as HKClinicalRecord:
            guard HKClinicalType.known.contains(record.clinicalType.clinicalTypeIdentifier) else {
                throw HKError(.errorInvalidArgument, "\(record.sampleType.identifier) is not a clinical type")
            }
            guard let resource = record.fhirResource else {
                throw HKError(.errorInvalidArgument, "a clinical record needs its FHIR resource")
            }
            let details = ClinicalRecordDetails(displayName: record.displayName, resourceType: resource.resourceType.rawValue,
                                                identifier: resource.identifier, sourceURL: resource.sourceURL?.absoluteString,
                                                fhirVersion: resource.fhirVersion.stringRepresentation, data: resource.data)
            kind = .clinicalRecord
            payload = SamplePayload(integer: 0, metadata: metadata, device: device, extra: details.encoded())
            healthRecordKey = cipher.indexHash("fhir", bundleIdentifier, resource.resourceType.rawValue, resource.identifier)
        case let stored as ActivitySummarySample:
            let details = try ActivitySummaryDetails(stored.summary)
            kind = .activitySummary
            let extra = try Self.encoder.encode(details)
            payload = SamplePayload(integer: 0, metadata: metadata, device: device, extra: extra)
            // One summary per day and source: a new one replaces it, unless it is the same.
            healthRecordKey = cipher.indexHash("activity", bundleIdentifier, "\(details.year)-\(details.month)-\(details.day)")
            contentVersion = cipher.indexHash("activity-content", bundleIdentifier, details.contentText)
                .prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        case let record as HKVerifiableClinicalRecord:
            guard !record.dataRepresentation.isEmpty else {
                throw HKError(.errorInvalidArgument, "a verifiable record needs its data")
            }
            kind = .verifiableRecord
            payload = SamplePayload(integer: 0, metadata: metadata, device: device,
                                    extra: try Self.encoder.encode(VerifiableRecordDetails(record)))
            healthRecordKey = cipher.indexHash("card", String(decoding: record.dataRepresentation, as: UTF8.self))
        default:
            throw HKError(.errorInvalidArgument, "\(sample.sampleType.identifier) samples cannot be saved")
        }

        if kind == .clinicalRecord || kind == .verifiableRecord {
            // A health record saved again with the same dates and content (a re-import) is
            // already in the store, not a replacement of itself.
            contentVersion = Self.contentVersion(cipher: cipher, bundleIdentifier: bundleIdentifier, kind: kind, type: sample.sampleType.identifier,
                                                 start: start, end: end, payload: payload)
        }

        var syncHash: Data?
        var syncVersion: Int64?
        if let healthRecordKey {
            syncHash = healthRecordKey
            syncVersion = contentVersion
        } else if let identifier = MetadataCodec.syncIdentifier(metadataValues) {
            // Compared byte for byte: the hash is of the UTF-8 bytes, and String's == also takes another normalization as equal.
            if let knownSyncHash, Self.sameBytes(knownSyncHash.syncIdentifier, identifier),
               Self.sameBytes(knownSyncHash.sourceBundleIdentifier, bundleIdentifier) {
                syncHash = knownSyncHash.hash
            } else {
                syncHash = cipher.indexHash("sync", bundleIdentifier, identifier)
            }
            syncVersion = MetadataCodec.syncVersion(metadataValues)
        }
        // A sync identifier and version kept in the row's own columns are not indexed again
        // (`HealthDatabase+SyncIndex.swift`): four keyed hashes and about 200 bytes a sample.
        let syncInColumns = healthRecordKey == nil && syncHash != nil
        let index = Self.metadataIndex(metadataValues, cipher: cipher, syncInColumns: syncInColumns)
        // Metadata is sealed in binary (`SamplePayload`): well-known keys as one byte, an import's sync identifier
        // as its digest's 32 bytes. A health record keeps its JSON (its content version hashes the record as saved).
        if let metadata, kind != .clinicalRecord, kind != .verifiableRecord {
            payload.binaryMetadata = plainBinary ?? MetadataCodec.compactBinary(metadataValues, json: metadata)
            if payload.binaryMetadata == nil, syncInColumns { payload.compactMetadata = MetadataCodec.compactSync(metadataValues) }
        }
        // The device is sealed once in its `device` row (v19-devices) and referred to by its keyed hash; a
        // health record keeps its own (its content version hashes the record as saved).
        var storedDevice: PreparedDevice?
        if let preparedDevice, kind != .clinicalRecord, kind != .verifiableRecord {
            payload.deviceReference = preparedDevice.hash
            storedDevice = preparedDevice
        }
        let type = sample.sampleType.identifier
        let context = RecordContext(uuid: sample.uuid, type: type, kind: kind, start: start, end: end)
        var prepared = PreparedSample(uuid: sample.uuid, type: type, kind: kind, start: start, end: end,
                              activityType: activityType, syncHash: syncHash, syncVersion: syncVersion,
                              sealed: try cipher.seal(payload.encodedBytes(), context: context.bytes),
                              primaryBits: payload.primaryBits, metadataIndex: index, members: members)
        prepared.replacesSameKey = healthRecordKey != nil
        prepared.device = storedDevice
        prepared.routeBlocks = routeBlocks
        prepared.workoutLink = workoutLink
        if syncInColumns { prepared.syncColumnsBundle = bundleIdentifier }
        return prepared
    }
}

extension SamplePreparer {
    /// Whether two strings are the same UTF-8 bytes (String's == also takes another Unicode normalization as equal),
    /// compared with memcmp: the generic `elementsEqual` over their UTF-8 views cost 0.4 s of a two-year import.
    static func sameBytes(_ first: String, _ second: String) -> Bool {
        var first = first
        var second = second
        return first.withUTF8 { firstBytes in
            second.withUTF8 { secondBytes in
                guard firstBytes.count == secondBytes.count else { return false }
                // Equal counts: no base address only when both are empty.
                guard let firstBase = firstBytes.baseAddress, let secondBase = secondBytes.baseAddress else { return true }
                return memcmp(firstBase, secondBase, firstBytes.count) == 0
            }
        }
    }

    /// A health record's content version: a keyed hash of its kind, type, dates and payload, so
    /// that saving the same content again is found already stored.
    static func contentVersion(cipher: RecordCipher, bundleIdentifier: String, kind: SampleKind, type: String, start: Double, end: Double,
                               payload: SamplePayload) -> Int64 {
        cipher.indexHash("record-content", bundleIdentifier, "\(kind.rawValue)", type, String(start.bitPattern), String(end.bitPattern),
                         Base64URL.encodeStandard(payload.encodedBytes()))
            .prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// The metadata index rows of a sample's metadata: keyed hashes of each key and of each
    /// value that can be compared for equality. With `syncInColumns` (the row's `sync_id` and
    /// `sync_version` hold its sync identifier and version), the sync identifier and a version
    /// the column answers exactly are left out (`HealthDatabase+SyncIndex.swift`).
    static func metadataIndex(_ values: [String: MetadataCodec.Value], cipher: RecordCipher, syncInColumns: Bool = false) -> [MetadataIndexEntry] {
        values.isEmpty ? [] : values.compactMap { key, value in
            if syncInColumns, key == HKMetadataKeySyncIdentifier || (key == HKMetadataKeySyncVersion && HealthDatabase.versionInColumn(value)) {
                return nil
            }
            return MetadataIndexEntry(keyHash: cipher.indexHash("mk", key), valueHash: value.indexForm.map { cipher.indexHash("mv", key, $0) })
        }
    }
}

/// The JSON and keyed hash of the device encoded last, reused while samples name the same
/// device object.
final class DeviceEncodings: Sendable {
    /// Sorted keys: equal devices encode to the same bytes, so they hash alike and share a row
    /// (a keyed container's order otherwise varies between encodings).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
    private let last = Mutex<(device: HKDevice, prepared: PreparedDevice)?>(nil)

    /// The device's JSON (as `JSONEncoder` writes it, keys sorted) and the keyed hash its `device` row is found by.
    func prepared(_ device: HKDevice, cipher: RecordCipher) throws -> PreparedDevice {
        if let cached = last.withLock({ $0 }), cached.device === device { return cached.prepared }
        let json = try Self.encoder.encode(device)
        let prepared = PreparedDevice(hash: HealthDatabase.deviceHash(json, cipher: cipher), json: json)
        last.withLock { $0 = (device, prepared) }
        return prepared
    }
}

extension SamplePreparer {
    /// Batches at least this large are prepared on several cores.
    static let parallelThreshold = 2_048

    /// Prepares `objects` in order. A large batch is cut into one chunk per core (at most 8),
    /// prepared by concurrent child tasks: sealing each record is most of a save's work outside
    /// SQLite. When several objects are invalid, the error is the first one's, as in order.
    func prepare(_ objects: [HKObject]) async throws -> [PreparedSample] {
        let workers = objects.count < Self.parallelThreshold ? 1 : max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        guard workers > 1 else { return try objects.map { try prepare($0) } }
        let chunk = (objects.count + workers - 1) / workers
        let parts = await withTaskGroup(of: (Int, Result<[PreparedSample], any Error>).self) { group in
            for worker in 0..<workers {
                let slice = objects[min(objects.count, worker * chunk)..<min(objects.count, (worker + 1) * chunk)]
                group.addTask { (worker, Result { try slice.map { try prepare($0) } }) }
            }
            var parts = [Result<[PreparedSample], any Error>](repeating: .success([]), count: workers)
            for await (worker, part) in group { parts[worker] = part }
            return parts
        }
        var prepared: [PreparedSample] = []
        prepared.reserveCapacity(objects.count)
        for part in parts { prepared += try part.get() }
        return prepared
    }
}
