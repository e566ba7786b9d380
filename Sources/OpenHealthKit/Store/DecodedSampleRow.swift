import Foundation
import GRDB

/// One `sample` row, decrypted, before it becomes an `HKSample`.
struct DecodedSampleRow {
    let rowID: Int64
    /// The sample's UUID (a restore from "Recently deleted" gives its copy a new one).
    var uuid: UUID
    let type: String
    let kind: SampleKind
    let start: Date
    let end: Date
    let activityType: Int64?
    let anchor: Int64
    let payload: SamplePayload
    let metadata: [String: MetadataCodec.Value]
    let revision: SourceRevisionRecord

    /// Reads the columns of `HealthDatabase.sampleColumns` and opens the sealed record.
    init(row: Row, context: DecodingContext) throws {
        rowID = row[0]
        let uuidBlob: Data = row[1]
        guard let uuid = UUID(databaseBlob: uuidBlob) else { throw HealthStoreError(.corruptDatabase, "a sample has a malformed UUID") }
        self.uuid = uuid
        type = row[2]
        guard let kind = SampleKind(rawValue: row[3]) else { throw HealthStoreError(.corruptDatabase, "a sample has an unknown kind") }
        self.kind = kind
        let start: Double = row[4]
        let end: Double = row[5]
        guard start.isFinite, end.isFinite, end >= start else {
            throw HealthStoreError(.corruptDatabase, "a stored sample ends before it starts")
        }
        self.start = Date(timeIntervalSinceReferenceDate: start)
        self.end = Date(timeIntervalSinceReferenceDate: end)
        activityType = row[6]
        anchor = row[7]
        let sealed: Data = row[8]
        let aad = RecordContext(uuid: uuidBlob, type: type, kind: kind, start: start, end: end)
        payload = try SamplePayload(decoding: context.cipher.open(sealed, context: aad.bytes))
        metadata = try payload.metadata.map(MetadataCodec.decode) ?? [:]
        revision = SourceRevisionRecord(bundleIdentifier: row[9], name: row[10], version: row[11], productType: row[12],
                                        operatingSystemVersion: row[13])
    }

    /// Builds the HealthKit object; quantity samples carry the value and unit they were saved
    /// with and are `HKCumulativeQuantitySample` or `HKDiscreteQuantitySample`.
    func makeSample(members: Set<HKSample>, context: DecodingContext) throws -> HKSample {
        let metadata: [String: Any]? = self.metadata.isEmpty ? nil : self.metadata.mapValues(\.anyValue)
        let device = try payload.deviceReference.map { try context.device($0) }
            ?? payload.device.map { try context.decoder.decode(HKDevice.self, from: $0) }
        let revision = context.revision(self.revision)
        switch kind {
        case .quantity:
            let type = context.quantityType(self.type)
            let details = try payload.extra.map(QuantityExtra.init(decoding:)) ?? QuantityExtra()
            var quantity = HKQuantity(unit: type.canonicalUnit, doubleValue: payload.doubleValue)
            if let value = details.originalValue, let unitString = details.originalUnit, let unit = context.unit(unitString),
               unit.isCompatible(with: type.canonicalUnit) {
                quantity = HKQuantity(unit: unit, doubleValue: value)
            }
            let count = details.count ?? 1
            if type.aggregationStyle == .cumulative {
                return HKCumulativeQuantitySample(type: type, quantity: quantity, count: count, start: start, end: end, uuid: uuid,
                                                  sourceRevision: revision, device: device, metadata: metadata)
            }
            return HKDiscreteQuantitySample(type: type, quantity: quantity, count: count, start: start, end: end, uuid: uuid,
                                            sourceRevision: revision, device: device, metadata: metadata)
        case .category:
            return HKCategorySample(type: context.categoryType(type), value: Int(truncatingIfNeeded: payload.integerValue),
                                    start: start, end: end, uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        case .correlation:
            return HKCorrelation(type: HKCorrelationType(HKCorrelationTypeIdentifier(rawValue: type)), start: start, end: end,
                                 objects: members, uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        case .clinicalRecord:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a clinical record has no details") }
            let details = try ClinicalRecordDetails(decoding: extraData)
            let version = (try? HKFHIRVersion(fromVersionString: details.fhirVersion)) ?? HKFHIRVersion.primaryR4()
            let resource = HKFHIRResource(resourceType: HKFHIRResourceType(rawValue: details.resourceType), identifier: details.identifier,
                                          data: details.data, sourceURL: details.sourceURL.flatMap(URL.init(string:)), fhirVersion: version)
            return HKClinicalRecord(type: HKClinicalType(HKClinicalTypeIdentifier(rawValue: type)), startDate: start, endDate: end,
                                    displayName: details.displayName, fhirResource: resource, uuid: uuid, sourceRevision: revision,
                                    metadata: metadata)
        case .verifiableRecord:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a verifiable record has no details") }
            let details = try context.decoder.decode(VerifiableRecordDetails.self, from: extraData)
            return HKVerifiableClinicalRecord(details: details, relevantDate: start, uuid: uuid, sourceRevision: revision)
        case .activitySummary:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "an activity summary has no details") }
            let details = try context.decoder.decode(ActivitySummaryDetails.self, from: extraData)
            return ActivitySummarySample(try details.makeSummary(), uuid: uuid, sourceRevision: revision)
        case .quantitySeries:
            let type = context.quantityType(self.type)
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a quantity series has no details") }
            let extra = try context.decoder.decode(QuantitySeriesExtra.self, from: extraData)
            let quantity = HKQuantity(unit: type.canonicalUnit, doubleValue: payload.doubleValue)
            if type.aggregationStyle == .cumulative {
                return HKCumulativeQuantitySample(type: type, quantity: quantity, count: extra.count, start: start, end: end, uuid: uuid,
                                                  sourceRevision: revision, device: device, metadata: metadata)
            }
            return HKDiscreteQuantitySample(type: type, quantity: quantity, count: extra.count, start: start, end: end, uuid: uuid,
                                            sourceRevision: revision, device: device, metadata: metadata,
                                            seriesSummary: extra.summary(unit: type.canonicalUnit))
        case .heartbeatSeries:
            return HKHeartbeatSeriesSample(count: Int(clamping: payload.integerValue), start: start, end: end, uuid: uuid,
                                           sourceRevision: revision, device: device, metadata: metadata)
        case .stateOfMind:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a state of mind has no details") }
            let details = try context.decoder.decode(StateOfMindDetails.self, from: extraData)
            return HKStateOfMind(date: start, kind: HKStateOfMind.Kind(rawValue: details.kind) ?? .momentaryEmotion,
                                 valence: payload.doubleValue, labels: details.labels.compactMap(HKStateOfMind.Label.init(rawValue:)),
                                 associations: details.associations.compactMap(HKStateOfMind.Association.init(rawValue:)),
                                 uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        case .scoredAssessment:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "an assessment has no answers") }
            let details = try context.decoder.decode(ScoredAssessmentDetails.self, from: extraData)
            if type == HKScoredAssessmentTypeIdentifier.PHQ9.rawValue {
                return HKPHQ9Assessment(date: start, answers: details.answers.compactMap(HKPHQ9Assessment.Answer.init(rawValue:)),
                                        uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
            }
            return HKGAD7Assessment(date: start, answers: details.answers.compactMap(HKGAD7Assessment.Answer.init(rawValue:)),
                                    uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        case .electrocardiogram:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "an electrocardiogram has no details") }
            return try ElectrocardiogramDetails(decoding: extraData).makeSample(start: start, end: end, uuid: uuid, revision: revision,
                                                                                device: device, metadata: metadata)
        case .audiogram:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "an audiogram has no details") }
            let details = try context.decoder.decode(AudiogramDetails.self, from: extraData)
            return HKAudiogramSample(points: try details.makePoints(), start: start, end: end, uuid: uuid, sourceRevision: revision,
                                     device: device, metadata: metadata)
        case .visionPrescription:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a vision prescription has no details") }
            let details = try context.decoder.decode(VisionPrescriptionDetails.self, from: extraData)
            return try details.makeSample(issued: start, uuid: uuid, revision: revision, device: device, metadata: metadata)
        case .medicationDoseEvent:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a medication dose has no details") }
            let details = try context.decoder.decode(MedicationDoseDetails.self, from: extraData)
            return try details.makeSample(status: payload.integerValue, start: start, end: end, uuid: uuid, revision: revision,
                                          device: device, metadata: metadata)
        case .workoutRoute:
            return HKWorkoutRoute(count: Int(clamping: payload.integerValue), start: start, end: end, uuid: uuid, sourceRevision: revision,
                                  device: device, metadata: metadata)
        case .workout:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a workout has no details") }
            let extra = try context.decoder.decode(WorkoutExtra.self, from: extraData)
            let activity = activityType.flatMap { UInt(exactly: $0) }.flatMap(HKWorkoutActivityType.init(rawValue:)) ?? .other
            let totals = WorkoutTotals(
                energyBurned: extra.energyKilocalories.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) },
                distance: extra.distanceMeters.map { HKQuantity(unit: .meter(), doubleValue: $0) },
                swimmingStrokeCount: extra.swimmingStrokes.map { HKQuantity(unit: .count(), doubleValue: $0) },
                flightsClimbed: extra.flightsClimbed.map { HKQuantity(unit: .count(), doubleValue: $0) })
            let events = extra.events?.compactMap(\.event)
            let workout = HKWorkout(activityType: activity, start: start, end: end, duration: extra.duration, totals: totals, events: events,
                                    uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
            workout.storedActivities = (extra.activities ?? []).compactMap(\.activity)
            workout.storedStatistics = WorkoutStatisticsRecord.dictionary(extra.statistics)
            return workout
        }
    }
}
