import Foundation
import GRDB

/// One `sample` row, decrypted, before it becomes an `HKSample`.
struct DecodedSampleRow {
    let rowID: Int64
    let uuid: UUID
    let type: String
    let kind: SampleKind
    let start: Date
    let end: Date
    let activityType: Int64?
    let anchor: Int64
    let payload: SamplePayload
    let metadata: [String: MetadataCodec.Value]
    let revision: SourceRevisionRecord
    private(set) var sample: HKSample?

    init(row: Row, cipher: RecordCipher) throws {
        rowID = row["id"]
        let uuidBlob: Data = row["uuid"]
        guard let uuid = UUID(databaseBlob: uuidBlob) else { throw HealthStoreError(.corruptDatabase, "a sample has a malformed UUID") }
        self.uuid = uuid
        type = row["type"]
        guard let kind = SampleKind(rawValue: row["kind"]) else { throw HealthStoreError(.corruptDatabase, "a sample has an unknown kind") }
        self.kind = kind
        start = Date(timeIntervalSinceReferenceDate: row["start"])
        end = Date(timeIntervalSinceReferenceDate: row["end"])
        activityType = row["activity_type"]
        anchor = row["anchor"]
        let sealed: Data = row["sealed"]
        payload = try SamplePayload(decoding: cipher.open(sealed, context: uuidBlob))
        metadata = try payload.metadata.map(MetadataCodec.decode) ?? [:]
        revision = SourceRevisionRecord(bundleIdentifier: row["bundle_identifier"], name: row["name"], version: row["version"],
                                        productType: row["product_type"], operatingSystemVersion: row["os_version"])
    }

    func with(sample: HKSample) -> DecodedSampleRow {
        var copy = self
        copy.sample = sample
        return copy
    }

    /// Builds the HealthKit object; quantity samples carry their value in the type's
    /// canonical unit and are `HKCumulativeQuantitySample` or `HKDiscreteQuantitySample`.
    func makeSample(members: Set<HKSample>) throws -> HKSample {
        let metadata: [String: Any]? = self.metadata.isEmpty ? nil : self.metadata.mapValues(\.anyValue)
        let device = try payload.device.map { try JSONDecoder().decode(HKDevice.self, from: $0) }
        let revision = self.revision.revision
        switch kind {
        case .quantity:
            let type = HKQuantityType(HKQuantityTypeIdentifier(rawValue: self.type))
            let details = try payload.extra.map(QuantityExtra.init(decoding:)) ?? QuantityExtra()
            var quantity = HKQuantity(unit: type.canonicalUnit, doubleValue: payload.doubleValue)
            if let value = details.originalValue, let unitString = details.originalUnit, let unit = try? HKUnit.parse(unitString),
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
            return HKCategorySample(type: HKCategoryType(HKCategoryTypeIdentifier(rawValue: type)), value: Int(payload.integerValue),
                                    start: start, end: end, uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        case .correlation:
            return HKCorrelation(type: HKCorrelationType(HKCorrelationTypeIdentifier(rawValue: type)), start: start, end: end,
                                 objects: members, uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        case .workout:
            guard let extraData = payload.extra else { throw HealthStoreError(.corruptDatabase, "a workout has no details") }
            let extra = try JSONDecoder().decode(WorkoutExtra.self, from: extraData)
            let activity = HKWorkoutActivityType(rawValue: UInt(activityType ?? Int64(HKWorkoutActivityType.other.rawValue))) ?? .other
            let totals = WorkoutTotals(
                energyBurned: extra.energyKilocalories.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) },
                distance: extra.distanceMeters.map { HKQuantity(unit: .meter(), doubleValue: $0) },
                swimmingStrokeCount: extra.swimmingStrokes.map { HKQuantity(unit: .count(), doubleValue: $0) },
                flightsClimbed: extra.flightsClimbed.map { HKQuantity(unit: .count(), doubleValue: $0) })
            let events = extra.events?.compactMap { event -> HKWorkoutEvent? in
                guard let type = HKWorkoutEventType(rawValue: event.type), event.end >= event.start else { return nil }
                return HKWorkoutEvent(type: type, dateInterval: DateInterval(start: Date(timeIntervalSinceReferenceDate: event.start),
                                                                             end: Date(timeIntervalSinceReferenceDate: event.end)),
                                      metadata: nil)
            }
            return HKWorkout(activityType: activity, start: start, end: end, duration: extra.duration, totals: totals, events: events,
                             uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
        }
    }
}
