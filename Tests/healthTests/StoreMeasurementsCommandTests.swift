import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing

/// `health store add` and `health store query` with states of mind, GAD-7 and PHQ-9 assessments,
/// audiograms, vision prescriptions, and (saved by the owner or logged) electrocardiograms,
/// heartbeat series and medication doses, through the built binary.
@Suite("health store: states of mind, assessments, audiograms, prescriptions, ECGs in add and query")
struct StoreMeasurementsCommandTests {
    /// The objects `store query --type TYPE --json` prints.
    private func query(_ runner: CommandRunner, _ type: String) async throws -> [[String: Any]] {
        let json = try await runner.run(["store", "query", "--type", type, "--json"])
        #expect(json.status == 0, "\(json.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
    }

    /// `store add` with `arguments`, which must succeed; what it says it saved.
    private func add(_ runner: CommandRunner, _ arguments: [String]) async throws -> String {
        let result = try await runner.run(["store", "add"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output.split(separator: "\n").first { $0.hasPrefix("Saved ") }.map { String($0.drop { $0 != ":" }.dropFirst(2)) } ?? ""
    }

    @Test("A state of mind and GAD-7 / PHQ-9 assessments: added, listed in words, and in JSON with their fields")
    func stateOfMindAndAssessments() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let mood = try await add(runner, ["--type", "state-of-mind", "--kind", "daily-mood", "--value", "0.5", "--labels", "content, Grateful",
                                          "--associations", "family,self-care", "--start", "2026-11-20T20:00:00Z"])
        #expect(mood == "Daily mood: pleasant (valence 0.5), feeling content, grateful, about family, self care")
        let moods = try await query(runner, "stateOfMind")
        #expect(moods.count == 1)
        #expect(moods.first?["kind"] as? String == "dailyMood" && moods.first?["valence"] as? Double == 0.5)
        #expect(moods.first?["valenceClassification"] as? String == "pleasant")
        #expect(moods.first?["labels"] as? [String] == ["content", "grateful"])
        #expect(moods.first?["associations"] as? [String] == ["family", "selfCare"])
        #expect(moods.first?["text"] as? String == mood)

        #expect(try await add(runner, ["--type", "gad7", "--answers", "1,0,2,1,0,0,nearly-every-day"]) == "GAD-7 score 7 of 21: mild anxiety risk")
        let gad7 = try #require(try await query(runner, "GAD7").first)
        #expect(gad7["score"] as? Int == 7 && gad7["risk"] as? String == "mild" && gad7["assessment"] as? String == "GAD7")
        #expect(gad7["answers"] as? [String] == ["severalDays", "notAtAll", "moreThanHalfTheDays", "severalDays", "notAtAll", "notAtAll",
                                                 "nearlyEveryDay"])
        let phq9 = try await add(runner, ["--type", "phq9", "--answers", "3,3,3,2,2,2,1,1,prefer-not-to-answer"])
        #expect(phq9 == "PHQ-9 score 17 of 27: moderately severe depression risk")
        #expect(try await query(runner, "PHQ9").first?["answers"] as? [String] == ["nearlyEveryDay", "nearlyEveryDay", "nearlyEveryDay",
            "moreThanHalfTheDays", "moreThanHalfTheDays", "moreThanHalfTheDays", "severalDays", "severalDays", "preferNotToAnswer"])
        let text = try await runner.run(["store", "query", "--type", "state-of-mind"])
        #expect(text.status == 0 && text.output.contains("Daily mood: pleasant (valence 0.5)"), "\(text.output)")
    }

    @Test("An audiogram and glasses and contacts prescriptions: added, listed in words, and in JSON per point and per eye")
    func audiogramAndPrescriptions() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let hearing = try await add(runner, ["--type", "audiogram", "--points", "500:20/25, 1000:15/20, 4000:-/40"])
        #expect(hearing == "Hearing test: 500 Hz left 20, right 25 dB HL; 1000 Hz left 15, right 20 dB HL; 4000 Hz right 40 dB HL")
        let points = try #require(try await query(runner, "audiogram").first?["sensitivityPoints"] as? [[String: Any]])
        #expect(points.map { $0["frequency"] as? Double } == [500, 1000, 4000])
        #expect(points.map { $0["leftEarSensitivity"] as? Double } == [20, 15, nil])
        #expect(points.map { $0["rightEarSensitivity"] as? Double } == [25, 20, 40])

        let glasses = try await add(runner, ["--type", "vision-prescription", "--right=-1.25/-0.5/90", "--left=-1/-0.25/85/1.5",
                                             "--start", "2026-11-20T10:00:00Z", "--expires", "2028-11-20T10:00:00Z"])
        #expect(glasses.hasPrefix("Glasses: right sphere -1.25 D, cylinder -0.5 D, axis 90°; left sphere -1 D, cylinder -0.25 D, axis 85°, add +1.5 D"),
                "\(glasses)")
        #expect(try await add(runner, ["--type", "vision-prescription", "--right", "2", "--brand", "Acuvue",
                                       "--start", "2026-11-21T10:00:00Z"]).hasPrefix("Contacts (Acuvue): right sphere +2 D, issued"))
        // Newest first: the contacts (issued on the 21st), then the glasses.
        let prescriptions = try await query(runner, "visionPrescription")
        #expect(prescriptions.map { $0["prescriptionType"] as? String } == ["contacts", "glasses"])
        let right = try #require(prescriptions.last?["rightEye"] as? [String: Any])
        #expect(right["sphere"] as? Double == -1.25 && right["cylinder"] as? Double == -0.5 && right["axis"] as? Double == 90)
        #expect((prescriptions.last?["leftEye"] as? [String: Any])?["addPower"] as? Double == 1.5)
        #expect(prescriptions.last?["expirationDate"] as? String == "2028-11-20T10:00:00Z")
        #expect(prescriptions.first?["brand"] as? String == "Acuvue" && prescriptions.first?["leftEye"] == nil)
    }

    @Test("Input these types cannot hold is refused with the option named, and nothing is saved")
    func badInputIsRefused() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let cases: [(arguments: [String], message: String)] = [
            (["--type", "state-of-mind", "--value", "1.5"], "--value '1.5' is not a valence: a number from -1 (very unpleasant) to 1"),
            (["--type", "state-of-mind"], "--value is required for a state of mind"),
            (["--type", "state-of-mind", "--value", "0", "--kind", "weekly"], "--kind 'weekly' is not a kind of state of mind"),
            (["--type", "state-of-mind", "--value", "0", "--labels", "happy,glum"], "--labels: 'glum' is not one of amazed, amused"),
            (["--type", "state-of-mind", "--value", "0", "--associations", "cats"], "--associations: 'cats' is not one of community"),
            (["--type", "gad7", "--answers", "1,1,1"], "--answers has 3 answers; a GAD-7 assessment has 7"),
            (["--type", "gad7", "--answers", "1,1,1,1,1,1,4"], "'4' is not a GAD-7 answer"),
            (["--type", "phq9"], "--answers is required for a PHQ-9 assessment"),
            (["--type", "phq9", "--answers", "4,0,0,0,0,0,0,0,0"], "only the ninth PHQ-9 question may be answered prefer-not-to-answer"),
            (["--type", "audiogram", "--points", "1000:20/20,500:10/10"], "the frequencies must be unique and ascending"),
            (["--type", "audiogram", "--points", "1000:20"], "--points '1000:20' is not a point"),
            (["--type", "audiogram", "--points", "1000:-/-"], "neither ear has a value"),
            (["--type", "vision-prescription"], "--right or --left is required for a vision prescription"),
            (["--type", "vision-prescription", "--right=-1/-0.5/200"], "--right: the axis is from 0 to 180 degrees, not 200"),
            (["--type", "vision-prescription", "--left=-1/-0.5"], "--left '-1/-0.5' is not a lens"),
        ]
        for item in cases {
            let result = try await runner.run(["store", "add"] + item.arguments)
            #expect(result.status == 2, "\(item.arguments): \(result.status) \(result.error)")
            #expect(result.error.contains(item.message), "\(item.arguments): stderr was \(result.error)")
        }
        for type in ["stateOfMind", "GAD7", "PHQ9", "audiogram", "visionPrescription"] {
            #expect(try await query(runner, type).isEmpty, "\(type)")
        }
    }

    @Test("An ECG and a heartbeat series the owner saved, and a logged dose, are listed in words and with their JSON fields")
    func electrocardiogramHeartbeatsAndDoses() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["store", "add", "--type", "weight", "--value", "70", "--unit", "kg"]).status == 0)
        let start = try Date("2026-11-20T09:00:00Z", strategy: .iso8601)
        do {
            let store = HKHealthStore(configuration: .init(location: .file(URL(fileURLWithPath: runner.store)),
                                                           key: .keyFile(runner.folder.appendingPathComponent("health.key")), role: .owner))
            let ecg = try HKElectrocardiogram(start: start, end: start.addingTimeInterval(2), classification: .sinusRhythm, symptomsStatus: .present,
                                              averageHeartRate: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 71.6),
                                              samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                              microvolts: [.appleWatchSimilarToLeadI: Array(repeating: 12.5, count: 1_024)], device: nil, metadata: nil)
            try await store.save(ecg)
            let beats = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: start)
            for beat in 0..<5 { try await beats.addHeartbeat(at: Double(beat) * 0.8, precededByGap: false) }
            _ = try await beats.finishSeries()
        }
        let ecg = try #require(try await query(runner, "ecg").first)
        #expect(ecg["classification"] as? String == "sinusRhythm" && ecg["symptomsStatus"] as? String == "present")
        #expect(ecg["averageHeartRate"] as? Double == 71.6 && ecg["samplingFrequency"] as? Double == 512)
        #expect(ecg["numberOfVoltageMeasurements"] as? Int == 1_024)
        #expect(ecg["text"] as? String == "Sinus rhythm, average 72 bpm, 1024 measurements at 512 Hz, with symptoms")
        let series = try #require(try await query(runner, "heartbeatSeries").first)
        #expect(series["beats"] as? Int == 5 && series["text"] as? String == "Heartbeat series of 5 beats")
        let listed = try await runner.run(["store", "query", "--type", "ecg"])
        #expect(listed.status == 0 && listed.output.contains("Sinus rhythm, average 72 bpm"), "\(listed.output)")

        #expect(try await runner.run(["store", "medications", "add", "--name", "Lisinopril 10 MG Oral Tablet", "--rxnorm", "314076",
                                      "--scheduled"]).status == 0)
        #expect(try await runner.run(["store", "medications", "dose", "--medication", "lisinopril", "--status", "skipped",
                                      "--at", "2026-11-21T08:30:00Z", "--scheduled-at", "2026-11-21T08:00:00Z"]).status == 0)
        let dose = try #require(try await query(runner, "medicationDoseEvent").first)
        #expect(dose["status"] as? String == "skipped" && dose["scheduleType"] as? String == "schedule")
        #expect(dose["medication"] as? String == "rxnorm:314076" && dose["scheduledDate"] as? String == "2026-11-21T08:00:00Z")
        // The dose names its medication as the owner's list does, not by its concept identifier.
        #expect(dose["medicationName"] as? String == "Lisinopril 10 MG Oral Tablet")
        #expect((dose["text"] as? String)?.hasPrefix("Skipped: Lisinopril 10 MG Oral Tablet (scheduled ") == true, "\(dose)")
        let doseLines = try await runner.run(["store", "query", "--type", "medicationDoseEvent"])
        #expect(doseLines.status == 0 && doseLines.output.contains("Skipped: Lisinopril 10 MG Oral Tablet (scheduled "), "\(doseLines.output)")
        #expect(!doseLines.output.contains("rxnorm:314076"), "\(doseLines.output)")
    }

    @Test("An ECG CSV as the Health app exports it is added with --file (every voltage, stored once however often it is added); a bad file is refused")
    func electrocardiogramFromItsFile() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        // The layout of a real `ecg_2020-09-24.csv` (empty lines inside the header), 1,024 voltages.
        var text = """
            Name,Jane Appleseed
            Date of Birth,"Jan 1, 1980"
            Recorded Date,2026-11-20 18:05:12 +0200
            Classification,Sinus Rhythm
            Symptoms,Fatigue
            Software Version,2
            Device,"Apple Watch Series 6 (Watch6,1) - watchOS 7.0"
            Sample Rate,512 hertz

            Lead,Lead I
            Unit,µV


            """
        for index in 0..<1_024 { text += "\(Double(index % 97) - 48.5)\n" }
        let file = runner.folder.appendingPathComponent("ecg_2026-11-20.csv")
        try Data(text.utf8).write(to: file)
        let saved = try await add(runner, ["--type", "ecg", "--file", file.path, "--metadata", "note=after the run"])
        #expect(saved == "Sinus rhythm, 1024 measurements at 512 Hz, with symptoms", "\(saved)")
        let again = try await runner.run(["store", "add", "--type", "ecg", "--file", file.path])
        #expect(again.status == 0 && again.output.hasPrefix("Already in the store: Sinus rhythm, 1024 measurements"), "\(again.output)")
        let listed = try await query(runner, "ecg")
        #expect(listed.count == 1, "the same file added twice is one recording")
        let ecg = try #require(listed.first)
        #expect(ecg["start"] as? String == "2026-11-20T16:05:12Z" && ecg["numberOfVoltageMeasurements"] as? Int == 1_024)
        #expect(ecg["end"] as? String == "2026-11-20T16:05:14Z")
        let metadata = try #require(ecg["metadata"] as? [String: Any])
        #expect(metadata["note"] as? String == "after the run")
        #expect((metadata["HKMetadataKeySyncIdentifier"] as? String)?.hasPrefix("apple-health-export:ecg:") == true)
        #expect(ecg["source"] as? String == "apple-health-export.ECG", "recorded as the import records it")

        try Data("Name,Jane\nRecorded Date,2026-11-20 18:05:12 +0200\n12\nnot a voltage\n".utf8).write(to: file)
        let bad = try await runner.run(["store", "add", "--type", "ecg", "--file", file.path])
        #expect(bad.status == 2 && bad.error.contains("line 4: an electrocardiogram CSV has a value that is not a number"), "\(bad.error)")
        let missing = try await runner.run(["store", "add", "--type", "ecg"])
        #expect(missing.status == 2 && missing.error.contains("--file is required for an electrocardiogram"), "\(missing.error)")
        let absent = try await runner.run(["store", "add", "--type", "ecg", "--file", runner.folder.appendingPathComponent("none.csv").path])
        #expect(absent.status == 2 && absent.error.contains("cannot read"), "\(absent.error)")
        #expect(try await query(runner, "ecg").count == 1)
    }

    @Test("An ECG an export brought in and then added from its CSV file with store add is one recording")
    func electrocardiogramImportedThenAdded() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let csv = AppleHealthExportGenerator.electrocardiogramCSV(recorded: "2026-11-20 18:05:12 +0200",
                                                                  values: (0..<600).map { Double($0 % 50) - 25 })
        let export = runner.folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: export, exportXML: Data(AppleHealthExportGenerator().document().utf8),
                                                files: [(path: "electrocardiograms/ecg_2026-11-20.csv", bytes: Data(csv.utf8))])
        let imported = try await runner.run(["import", "apple-health", export.path])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try await query(runner, "ecg").count == 1)
        let file = runner.folder.appendingPathComponent("ecg_2026-11-20.csv")
        try Data(csv.utf8).write(to: file)
        let added = try await runner.run(["store", "add", "--type", "ecg", "--file", file.path])
        #expect(added.status == 0 && added.output.hasPrefix("Already in the store: "), "\(added.output) \(added.error)")
        #expect(try await query(runner, "ecg").count == 1)
    }
}
