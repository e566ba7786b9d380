import Foundation
@testable import HealthWebApp
import OpenHealthKit
import Testing

/// States of mind, GAD-7 and PHQ-9 assessments, ECGs, audiograms, vision prescriptions,
/// heartbeat series and medication doses: Browse lists each under its group with its value in
/// words, and each type's page shows its rows in words (the ECG with its trace).
@Suite("Measurement pages")
struct MeasurementPagesTests {
    static let at = WebTestFixture.now.addingTimeInterval(-3600) // 2025-11-26 11:00 UTC

    /// Saves one sample of each type into the fixture's store.
    static func saveOneOfEach(_ store: HKHealthStore) async throws {
        let hour = Self.at
        try await store.save(HKStateOfMind(date: hour, kind: .dailyMood, valence: 0.4, labels: [.content, .grateful],
                                           associations: [.family, .currentEvents]))
        let gad7 = [1, 0, 2, 1, 0, 0, 3].compactMap(HKGAD7Assessment.Answer.init(rawValue:))
        try await store.save(HKGAD7Assessment(date: hour, answers: gad7))
        let phq9 = [2, 2, 2, 2, 1, 1, 1, 1, 0].compactMap(HKPHQ9Assessment.Answer.init(rawValue:))
        try await store.save(HKPHQ9Assessment(date: hour, answers: phq9))
        // 6 s at 512 Hz: a beat's spike each second over a flat line.
        let microvolts = (0..<3072).map { Float($0 % 512 < 8 ? 900 : -100) }
        try await store.save(try HKElectrocardiogram(start: hour, end: hour.addingTimeInterval(6), classification: .sinusRhythm,
                                                     symptomsStatus: .none, averageHeartRate: HKQuantity(unit: bpm, doubleValue: 62),
                                                     samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                                     microvolts: [.appleWatchSimilarToLeadI: microvolts], device: nil, metadata: nil))
        let dBHL = HKUnit.decibelHearingLevel()
        let points = try [(500.0, 20.0, 25.0), (1000, 30, 35), (4000, 40, 45)].map {
            try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertz(), doubleValue: $0.0),
                                            leftEarSensitivity: HKQuantity(unit: dBHL, doubleValue: $0.1),
                                            rightEarSensitivity: HKQuantity(unit: dBHL, doubleValue: $0.2))
        }
        try await store.save(HKAudiogramSample(sensitivityPoints: points, start: hour, end: hour.addingTimeInterval(300), device: nil, metadata: nil))
        let right = HKGlassesLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: -2), cylinder: HKQuantity(unit: .diopter(), doubleValue: -0.5),
                                               axis: HKQuantity(unit: .degreeAngle(), doubleValue: 90), addPower: nil, vertexDistance: nil, prism: nil,
                                               farPupillaryDistance: nil, nearPupillaryDistance: nil)
        let left = HKGlassesLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: -1.75), cylinder: nil, axis: nil,
                                              addPower: HKQuantity(unit: .diopter(), doubleValue: 1.25), vertexDistance: nil, prism: nil,
                                              farPupillaryDistance: nil, nearPupillaryDistance: nil)
        try await store.save(HKGlassesPrescription(rightEyeSpecification: right, leftEyeSpecification: left, dateIssued: hour,
                                                   expirationDate: hour.addingTimeInterval(730 * 86_400), device: nil, metadata: nil))
        let builder = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: hour)
        for beat in 0..<61 { try await builder.addHeartbeat(at: Double(beat), precededByGap: false) }
        _ = try await builder.finishSeries()
        let medication = try await store.addMedication(displayText: "Ibuprofen 200 mg tablet")
        try await store.logMedicationDose(of: medication, status: .taken, doseQuantity: 2, date: hour)
    }

    static let bpm = HKUnit.count().unitDivided(by: .minute())

    /// The rows of a type page's samples table, each row's cells as text.
    static func rows(_ html: String) -> [[String]] {
        guard let body = html.range(of: "<tbody>"), let end = html.range(of: "</tbody>", range: body.upperBound..<html.endIndex) else { return [] }
        return html[body.upperBound..<end.lowerBound].components(separatedBy: "<tr>").dropFirst().map { row in
            // The last cell is the Delete button's.
            row.components(separatedBy: "<td>").dropFirst().dropLast().map { String($0.prefix { $0 != "<" }) }
        }
    }

    /// The points of the ECG trace's polyline.
    static func tracePoints(_ html: String) -> [(x: Double, y: Double)] {
        guard let polyline = html.range(of: "<polyline "), let start = html.range(of: "points=\"", range: polyline.upperBound..<html.endIndex),
              let end = html[start.upperBound...].firstIndex(of: "\"") else { return [] }
        return html[start.upperBound..<end].split(separator: " ").compactMap { pair in
            let numbers = pair.split(separator: ",").compactMap { Double($0) }
            return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
        }
    }

    @Test("Browse lists each new type in its group with its value in words; each page lists it in words; the ECG page draws its trace")
    func browseAndPages() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await Self.saveOneOfEach(fixture.store)
        let types: [HKSampleType] = [HKObjectType.stateOfMindType(), HKScoredAssessmentType(.GAD7), HKScoredAssessmentType(.PHQ9),
                                     HKObjectType.electrocardiogramType(), HKObjectType.audiogramSampleType(), HKObjectType.visionPrescriptionType(),
                                     HKSeriesType.heartbeat(), HKObjectType.medicationDoseEventType()]
        let (browse, pages) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            var pages: [String: String] = [:]
            for type in types {
                let page = try await client.send(.get, "/browse/\(type.identifier)?period=week", cookie: cookie)
                #expect(page.status == .ok, "\(type.identifier)")
                pages[type.identifier] = page.body
            }
            return (try await client.send(.get, "/browse", cookie: cookie).body, pages)
        }
        // Browse: each type in its group, with its latest value in words.
        let expected: [(type: HKSampleType, group: String, value: String)] = [
            (types[0], "Mental Wellbeing", "Daily Mood: Slightly Pleasant; Content, Grateful; Family, Current Events"),
            (types[1], "Mental Wellbeing", "GAD-7 score 7 of 21: mild anxiety risk"),
            (types[2], "Mental Wellbeing", "PHQ-9 score 12 of 27: moderate depression risk"),
            (types[3], "Heart", "Sinus Rhythm, 62 bpm average"),
            (types[4], "Hearing", "Left 30 dBHL, right 35 dBHL average, 3 frequencies"),
            (types[5], "Other Data", "Glasses: right -2.00 sphere, -0.50 cylinder, axis 90°; left -1.75 sphere, add +1.25"),
            (types[6], "Heart", "61 beats in 1 min"),
            (types[7], "Medications", "Taken, 2 (as needed)"),
        ]
        for entry in expected {
            let heading = try #require(browse.range(of: ">\(entry.group)</h2>"), "\(entry.group)")
            let section = browse[heading.upperBound...].prefix { $0 != "§" }
            let sectionEnd = section.range(of: "</section>")?.lowerBound ?? section.endIndex
            let link = "<a href=\"/browse/\(entry.type.identifier)\">\(SampleText.name(of: entry.type))</a>"
            let shown = try #require(section[..<sectionEnd].range(of: link), "\(entry.type.identifier) under \(entry.group)")
            let line = section[shown.upperBound...].prefix { $0 != "\n" }
            #expect(line.contains(">\(entry.value)</span>"), "\(line)")
            #expect(line.contains("2025-11-26 11:00 UTC"), "\(line)")
        }
        #expect(browse.contains("13 of \(HKObjectType.allSampleTypes.filter(TypeGroup.listed).count) types have data."))
        // A route is reached through its workout, never listed on its own.
        #expect(!browse.contains(HKWorkoutRouteTypeIdentifier))

        func row(_ type: HKSampleType) -> [String] { Self.rows(pages[type.identifier] ?? "").first ?? [] }
        #expect(row(types[0]) == ["2025-11-26 11:00 UTC", "Daily Mood", "Slightly Pleasant", "Content, Grateful", "Family, Current Events", "Owner"])
        #expect(row(types[1]) == ["2025-11-26 11:00 UTC", "7 of 21", "Mild anxiety risk", "Owner"])
        #expect(row(types[2]) == ["2025-11-26 11:00 UTC", "12 of 27", "Moderate depression risk", "Owner"])
        #expect(row(types[3]) == ["2025-11-26 11:00 UTC", "Sinus Rhythm", "62 bpm", "512 Hz", "3,072", "None", "Owner"])
        #expect(row(types[4]) == ["2025-11-26 11:00–11:05 UTC", "30 dBHL average", "35 dBHL average",
                                  "500 Hz: left 20 dBHL, right 25 dBHL; 1,000 Hz: left 30 dBHL, right 35 dBHL; 4,000 Hz: left 40 dBHL, right 45 dBHL",
                                  "Owner"])
        #expect(row(types[5]) == ["2025-11-26", "Glasses", "-2.00 sphere, -0.50 cylinder, axis 90°", "-1.75 sphere, add +1.25", "2027-11-26", "Owner"])
        #expect(row(types[6]) == ["2025-11-26 11:00–11:01 UTC", "61", "1 min", "60 bpm", "Owner"])
        #expect(row(types[7]) == ["2025-11-26 11:00 UTC", "Ibuprofen 200 mg tablet", "Taken", "2", "As needed", "Owner"])
        for type in types {
            #expect(Self.rows(pages[type.identifier] ?? "").count == 1, "\(type.identifier)")
        }
        // The ECG's trace: a polyline titled with its recording, spanning the lowest to the highest voltage.
        let ecg = pages[types[3].identifier] ?? ""
        #expect(ecg.contains("<title id=\"ecg-trace-title\">ECG of 2025-11-26 11:00 UTC: lead I, 6 s</title>"))
        #expect(ecg.contains("Voltage over time, -100 to 900 µV."))
        #expect(ecg.contains("class=\"ecg-trace\" viewBox=\"0 0 600 120\""))
        let points = Self.tracePoints(ecg)
        // 3,072 voltages in stretches of 6: each stretch's lowest and highest (one point where they are equal), then the last: 521.
        #expect(points.count == 521 && points.count <= TypePageMeasurements.tracePoints, "\(points.count) points")
        #expect(points.first?.x == 0 && points.last?.x == 600, "\(points.prefix(2)) … \(points.suffix(2))")
        #expect(zip(points, points.dropFirst()).allSatisfy { $0.x < $1.x }, "x must increase")
        // -100 µV at the bottom margin (120 - 4), 900 µV at the top (4), nothing outside.
        #expect(points.map(\.y).max() == 116 && points.map(\.y).min() == 4, "\(points.map(\.y).min() ?? 0)...\(points.map(\.y).max() ?? 0)")
        #expect(points.allSatisfy { $0.y == 4 || $0.y == 116 })
        // Each of the 6 beats' spikes is drawn: the trace starts at the top and rises to it 5 more times.
        #expect(zip(points, points.dropFirst()).filter { $0.y == 116 && $1.y == 4 }.count == 5)
    }

    @Test("A page of doses lists 50 and pages the rest, as every type page does")
    func bounded() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let medication = try await fixture.store.addMedication(displayText: "Vitamin D")
        for minute in 0..<60 {
            try await fixture.store.logMedicationDose(of: medication, status: minute % 2 == 0 ? .taken : .skipped, doseQuantity: 1,
                                                      date: Self.at.addingTimeInterval(Double(minute) * 60 - 3 * 3600))
        }
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/browse/\(HKMedicationDoseEventTypeIdentifierMedicationDoseEvent)?period=day", cookie: cookie)
        }
        let rows = Self.rows(page.body)
        #expect(rows.count == TypePageSamples.pageSize)
        #expect(rows.allSatisfy { $0[1] == "Vitamin D" && ["Taken", "Skipped"].contains($0[2]) })
        #expect(page.body.contains("rel=\"next\">Older samples"))
    }
}
