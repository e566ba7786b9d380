import Foundation
import OpenHealthKit
import Testing

/// `health store add` and `health store types` with the words people write (issue 35), through
/// the built binary.
@Suite("health store: everyday type names, units and values")
struct StoreWordsCommandTests {
    /// The one sample of `type` in the runner's store, as `store query --json` gives it in `unit`.
    private func stored(_ runner: CommandRunner, _ type: String, unit: String) async throws -> [String: Any] {
        let json = try await runner.run(["store", "query", "--type", type, "--unit", unit, "--json"])
        #expect(json.status == 0, "\(json.error)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(objects.count == 1)
        return try #require(objects.first)
    }

    /// What `store add` says it saved, after the sample's identifier.
    private func saved(_ result: CommandRunner.Result) -> String {
        guard let line = result.output.split(separator: "\n").first(where: { $0.hasPrefix("Saved ") }),
              let colon = line.firstIndex(of: ":") else { return "" }
        return String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
    }

    @Test("weight in kg, steps, heart rate in bpm, glucose in mmol/L and temperature in °C are stored as HealthKit units say")
    func quantities() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let cases: [(arguments: [String], type: String, unit: String, value: Double, text: String)] = [
            (["--type", "weight", "--value", "70", "--unit", "kg"], "bodyMass", "kg", 70, "70 kg"),
            (["--type", "steps", "--value", "8412", "--start", "2026-11-20T08:00:00Z", "--end", "2026-11-20T09:00:00Z"], "stepCount", "count", 8412,
             "8,412 steps"),
            (["--type", "heart-rate", "--value", "72", "--unit", "bpm"], "heartRate", "count/min", 72, "72 bpm"),
            (["--type", "glucose", "--value", "5.4", "--unit", "mmol/L"], "bloodGlucose", "mmol<180.15588000005408>/L", 5.4, "5.4 mmol/L"),
            (["--type", "temperature", "--value", "36.8", "--unit", "°C"], "bodyTemperature", "degC", 36.8, "36.8 °C"),
        ]
        for item in cases {
            let result = try await runner.run(["store", "add"] + item.arguments)
            #expect(result.status == 0, "\(item.arguments): \(result.error)")
            #expect(saved(result) == item.text)
            let object = try await stored(runner, item.type, unit: item.unit)
            let value = try #require(object["value"] as? Double)
            #expect(abs(value - item.value) < 1e-9, "\(item.type): \(value)")
        }
        // 5.4 mmol/L of glucose in mg/dL, with glucose's molar mass.
        let glucose = try await stored(runner, "glucose", unit: "mg/dL")
        #expect(abs((glucose["value"] as? Double ?? 0) - 5.4 * 180.15588000005408 / 10) < 1e-9)
        // °F converts as HealthKit's degF does.
        let fahrenheit = try await runner.run(["store", "add", "--type", "wrist-temperature", "--value", "98.6", "--unit", "°F"])
        #expect(fahrenheit.status == 0, "\(fahrenheit.error)")
        #expect(abs((try await stored(runner, "appleSleepingWristTemperature", unit: "degC")["value"] as? Double ?? 0) - 37) < 1e-9)
    }

    @Test("a number without --unit is in the unit the person sees (180 cm, 5 km), the owner's choice first; glucose needs its unit")
    func unitlessValuesAreInTheDisplayUnit() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let height = try await runner.run(["store", "add", "--type", "height", "--value", "180"])
        #expect(height.status == 0, "\(height.error)")
        #expect(saved(height) == "180 cm")
        #expect(try await stored(runner, "height", unit: "m")["value"] as? Double == 1.8)
        let distance = try await runner.run(["store", "add", "--type", "distance", "--value", "5"])
        #expect(saved(distance) == "5 km")
        #expect(try await stored(runner, "distanceWalkingRunning", unit: "m")["value"] as? Double == 5_000)
        // Glucose without a unit is refused (mg/dL or mmol/L?), and nothing is stored.
        let glucose = try await runner.run(["store", "add", "--type", "glucose", "--value", "5.4"])
        #expect(glucose.status == 2)
        #expect(glucose.error.contains("Blood Glucose needs its unit: add --unit mg/dL or --unit mmol/L"), "stderr was: \(glucose.error)")
        let none = try await runner.run(["store", "query", "--type", "glucose", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(none.output.utf8)) as? [Any])?.isEmpty == true)
        // Once the owner chose mmol/L (Settings on the page), a bare number is in mmol/L, and it says so.
        do {
            let store = HKHealthStore(configuration: .init(location: .file(URL(fileURLWithPath: runner.store)),
                                                           key: .keyFile(runner.folder.appendingPathComponent("health.key")), role: .owner))
            try store.setPreferredUnit(HKUnit.moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose).unitDivided(by: .liter()),
                                       for: HKQuantityType(.bloodGlucose))
        }
        let chosen = try await runner.run(["store", "add", "--type", "glucose", "--value", "5.4"])
        #expect(chosen.status == 0, "\(chosen.error)")
        #expect(saved(chosen) == "5.4 mmol/L")
        let value = try await stored(runner, "glucose", unit: "mmol<180.15588000005408>/L")["value"] as? Double ?? 0
        #expect(abs(value - 5.4) < 1e-9)
        // `store query` shows glucose in the owner's unit too, whatever unit it was added in.
        #expect(try await runner.run(["store", "add", "--type", "glucose", "--value", "100 mg/dL", "--start", "2026-11-19T08:00:00Z"]).status == 0)
        let query = try await runner.run(["store", "query", "--type", "glucose"])
        #expect(query.output.contains("5.6 mmol/L") && !query.output.contains("mg/dL"), "\(query.output)")
        // A workout's distance and energy take a unit; a bare distance stays in metres.
        let workout = try await runner.run(["store", "add", "--type", "workout", "--activity", "running", "--start", "2026-11-20T07:00:00Z",
                                            "--end", "2026-11-20T07:40:00Z", "--distance", "3.1 mi", "--energy", "1750 kJ"])
        #expect(workout.status == 0, "\(workout.error)")
        let object = try await stored(runner, "workout", unit: "count")
        #expect(abs((object["distanceMeters"] as? Double ?? 0) - 3.1 * 1_609.344) < 1e-6)
        #expect(abs((object["energyKilocalories"] as? Double ?? 0) - 1_750 / 4.184) < 1e-6)
    }

    @Test("a category value by name and a blood pressure as systolic/diastolic")
    func categoryAndBloodPressure() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let sleep = try await runner.run(["store", "add", "--type", "sleep", "--value", "Core sleep", "--start", "2026-11-20T01:00:00Z",
                                          "--end", "2026-11-20T01:47:00Z"])
        #expect(sleep.status == 0, "\(sleep.error)")
        #expect(saved(sleep) == "Core sleep 47 min")
        #expect(try await stored(runner, "sleepAnalysis", unit: "count")["value"] as? Int == HKCategoryValueSleepAnalysis.asleepCore.rawValue)
        let deep = try await runner.run(["store", "add", "--type", "sleepAnalysis", "--value", "asleepdeep", "--start", "2026-11-20T02:00:00Z",
                                         "--end", "2026-11-20T02:30:00Z"])
        #expect(saved(deep) == "Deep sleep 30 min")

        let pressure = try await runner.run(["store", "add", "--type", "blood-pressure", "--value", "120/80"])
        #expect(pressure.status == 0, "\(pressure.error)")
        #expect(saved(pressure) == "120/80 mmHg")
        let object = try await stored(runner, "bloodPressure", unit: "count")
        let members = try #require(object["objects"] as? [[String: Any]])
        #expect(Set(members.compactMap { $0["value"] as? Double }) == [120, 80])
    }

    @Test("a refused category value lists the valid names, and nothing is stored")
    func refusedCategoryValue() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let result = try await runner.run(["store", "add", "--type", "sleep", "--value", "dozing"])
        #expect(result.status == 1)
        #expect(result.error.contains("'dozing' is not a value of Sleep Analysis: "
                                          + "use one of inBed, asleepUnspecified, awake, asleepCore, asleepDeep, asleepREM"),
                "stderr was: \(result.error)")
        let unit = try await runner.run(["store", "add", "--type", "steps", "--value", "1", "--unit", "kg"])
        #expect(unit.status == 2)
        #expect(unit.error.contains("unit 'kg' does not fit Step Count: use steps, count"), "stderr was: \(unit.error)")
        let query = try await runner.run(["store", "query", "--type", "sleep", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(query.output.utf8)) as? [Any])?.isEmpty == true)
    }

    @Test("store types lists the everyday names, identifiers and units, as text and JSON")
    func types() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let text = try await runner.run(["store", "types"])
        #expect(text.status == 0, "\(text.error)")
        let weight = try #require(text.output.split(separator: "\n").first { $0.hasPrefix("weight ") })
        #expect(weight.contains("HKQuantityTypeIdentifierBodyMass") && weight.contains("kg, lb, st"))
        let json = try await runner.run(["store", "types", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let glucose = try #require(entries.first { $0["name"] as? String == "glucose" })
        #expect(glucose["identifier"] as? String == HKQuantityTypeIdentifier.bloodGlucose.rawValue)
        #expect(Set(glucose["units"] as? [String] ?? []).isSuperset(of: ["mg/dL", "mmol/L"]))
        let sleep = try #require(entries.first { $0["name"] as? String == "sleep" })
        #expect((sleep["values"] as? [[String: Any]])?.contains { $0["name"] as? String == "asleepDeep" && $0["label"] as? String == "Deep sleep" } == true)
        // Food is listed for `store query`, marked as not added by `store add` (which refuses it).
        let food = try #require(text.output.split(separator: "\n").first { $0.hasPrefix("food ") })
        #expect(food.contains("query only"), "\(food)")
        #expect(try #require(entries.first { $0["name"] as? String == "food" })["addable"] as? Bool == false)
        #expect(glucose["addable"] as? Bool == true)
        #expect(try await runner.run(["store", "add", "--type", "food", "--value", "1"]).status != 0)
        let all = try await runner.run(["store", "types", "--all", "--json"])
        let every = try #require(try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [[String: Any]])
        #expect(every.count == HKObjectType.allSampleTypes.count)
    }
}
