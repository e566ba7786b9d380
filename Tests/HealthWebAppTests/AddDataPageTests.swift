import Foundation
import HealthWebApp
import OpenHealthKit
import Testing
import TestSupport

@Suite("Add data pages")
struct AddDataPageTests {
    static let bodyMass = HKQuantityType(.bodyMass)

    /// Posts an add form (with the session's token) and returns the answer.
    static func add(_ client: WebClient, _ cookie: String, _ type: String, _ fields: String) async throws -> WebAnswer {
        try await client.send(.post, "/browse/\(type)/add", cookie: cookie, form: "csrf=\(client.csrf(cookie))&" + fields)
    }

    @Test("a weight typed in lb is stored as that mass (kg on the store's scale) as the owner; the page then says what was saved in the person's units")
    func quantityWithUnit() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let before = try await fixture.store.count(of: Self.bodyMass)
        let (form, saved, page) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let form = try await client.send(.get, "/browse/\(Self.bodyMass.identifier)/add", cookie: cookie)
            let saved = try await Self.add(client, cookie, Self.bodyMass.identifier, "value=220.462&unit=lb&start=2025-11-26T08%3A15&end=")
            let page = try await client.send(.get, saved.headers[.location] ?? "/", cookie: cookie)
            return (form, saved, page)
        }
        #expect(form.status == .ok)
        for text in ["<h1>Add weight</h1>", "<option value=\"kg\" selected>kg</option>", "<option value=\"lb\">lb</option>",
                     "name=\"csrf\" value=\"", "type=\"datetime-local\" required value=\"2025-11-26T12:00\"", "Back to Weight"] {
            #expect(form.body.contains(text), "\(text)")
        }
        #expect(saved.status == .seeOther)
        #expect(saved.headers[.location]?.hasPrefix("/browse/\(Self.bodyMass.identifier)/add?saved=") == true)
        #expect(page.body.contains("Saved Weight: 100 kg, 2025-11-26 08:15 UTC."), "\(page.body)")
        #expect(try await fixture.store.count(of: Self.bodyMass) == before + 1)
        let newest = try #require(try await fixture.store.newest(of: Self.bodyMass) as? HKQuantitySample)
        #expect(abs(newest.quantity.doubleValue(for: .gramUnit(with: .kilo)) - 100) < 0.001)
        #expect(newest.startDate == Date(timeIntervalSince1970: 1_764_144_900))
        #expect(newest.sourceRevision.source.name == "Owner")
    }

    @Test("a category value by name, a blood-pressure reading (a correlation of its two members) and a workout with energy and distance are stored")
    func otherKinds() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let sleep = HKCategoryType(.sleepAnalysis), pressure = HKCorrelationType(.bloodPressure), workouts = HKWorkoutType()
        let counts = (try await fixture.store.count(of: sleep), try await fixture.store.count(of: pressure))
        let answers = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let sleepForm = try await client.send(.get, "/browse/\(sleep.identifier)/add", cookie: cookie)
            let workoutForm = try await client.send(.get, "/browse/\(workouts.identifier)/add", cookie: cookie)
            return [
                sleepForm, workoutForm,
                try await Self.add(client, cookie, sleep.identifier, "value=asleepREM&start=2025-11-26T05%3A00&end=2025-11-26T05%3A45"),
                try await Self.add(client, cookie, pressure.identifier, "systolic=128&diastolic=84&start=2025-11-26T09%3A00"),
                try await Self.add(client, cookie, workouts.identifier,
                                   "activity=running&start=2025-11-26T07%3A00&end=2025-11-26T07%3A40&energy=1750&energyUnit=kJ&distance=3.1&distanceUnit=mi"),
            ]
        }
        #expect(answers[0].body.contains("<option value=\"asleepREM\">REM sleep</option>"))
        #expect(answers[1].body.contains("<option value=\"running\">Running</option>"))
        #expect(answers[1].body.contains("<option value=\"walking\" selected>Walking</option>"))
        for answer in answers.dropFirst(2) { #expect(answer.status == .seeOther, "\(answer.body)") }
        #expect(try await fixture.store.count(of: sleep) == counts.0 + 1)
        let newestSleep = try #require(try await fixture.store.newest(of: sleep) as? HKCategorySample)
        #expect(newestSleep.value == HKCategoryValueSleepAnalysis.asleepREM.rawValue)
        #expect(try await fixture.store.count(of: pressure) == counts.1 + 1)
        let reading = try await HKSampleQueryDescriptor(predicates: [.sample(type: pressure, predicate: HKQuery.predicateForSamples(
            withStart: Date(timeIntervalSince1970: 1_764_147_600), end: Date(timeIntervalSince1970: 1_764_147_601)))], sortDescriptors: [])
            .result(for: fixture.store)
        let correlation = try #require(reading.first as? HKCorrelation)
        let systolic = correlation.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample
        #expect(systolic?.quantity.doubleValue(for: .millimeterOfMercury()) == 128)
        let workout = try #require(try await fixture.store.newest(of: workouts) as? HKWorkout)
        #expect(workout.workoutActivityType == .running && workout.duration == 2400)
        #expect(abs((workout.totalEnergyBurned?.doubleValue(for: .kilocalorie()) ?? 0) - 418.26) < 0.01)
        #expect(abs((workout.totalDistance?.doubleValue(for: .mile()) ?? 0) - 3.1) < 0.0001)
    }

    @Test("bad input is refused with a reason, the form filled in again and status 400, and nothing is stored; without the CSRF token, 403")
    func refusals() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let before = try await fixture.store.count(of: Self.bodyMass)
        let type = Self.bodyMass.identifier
        let cases: [(String, String)] = [
            ("value=heavy&unit=kg&start=2025-11-26T08%3A00", "is not a number"),
            ("value=70&unit=bpm&start=2025-11-26T08%3A00", "does not fit"),
            ("value=70&unit=kg&start=2025-13-26T08%3A00", "is not a date and time"),
            ("value=70&unit=kg&start=2025-11-26T08%3A00&end=2025-11-25T08%3A00", "The end is before the start"),
            ("value=70&unit=kg&start=2031-01-01T08%3A00", "more than a day from now"),
            ("value=&unit=kg&start=2025-11-26T08%3A00", "The value is needed"),
            ("value=70&unit=kg&start=", "The start is needed"),
            ("value=70+lb&unit=kg&start=2025-11-26T08%3A00", "already says its unit"),
        ]
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            for (fields, reason) in cases {
                let answer = try await Self.add(client, cookie, type, fields)
                #expect(answer.status == .badRequest, "\(fields)")
                #expect(answer.body.contains(reason) && answer.body.contains("nothing was saved"), "\(fields): \(answer.body)")
                #expect(answer.body.contains("<form method=\"post\" action=\"/browse/\(type)/add\""), "\(fields)")
            }
            let filledIn = try await Self.add(client, cookie, type, "value=heavy&unit=lb&start=2025-11-26T08%3A00")
            #expect(filledIn.body.contains("value=\"heavy\"") && filledIn.body.contains("<option value=\"lb\" selected>lb</option>"))
            let sleep = try await Self.add(client, cookie, HKCategoryType(.sleepAnalysis).identifier, "value=dreaming&start=2025-11-26T02%3A00")
            #expect(sleep.status == .badRequest && sleep.body.contains("is not one of the values of Sleep"))
            let pressure = try await Self.add(client, cookie, HKCorrelationType(.bloodPressure).identifier,
                                              "systolic=80&diastolic=120&start=2025-11-26T09%3A00")
            #expect(pressure.status == .badRequest && pressure.body.contains("the systolic at least the diastolic"))
            let workout = try await Self.add(client, cookie, HKWorkoutType().identifier, "activity=flying&start=2025-11-26T07%3A00&end=2025-11-26T08%3A00")
            #expect(workout.status == .badRequest && workout.body.contains("is not a workout activity"))
            let badUnit = try await Self.add(client, cookie, HKWorkoutType().identifier,
                                             "activity=running&start=2025-11-26T07%3A00&end=2025-11-26T08%3A00&energy=3&energyUnit=lb")
            #expect(badUnit.status == .badRequest)
            let withoutToken = try await client.send(.post, "/browse/\(type)/add", cookie: cookie, form: "value=70&unit=kg&start=2025-11-26T08%3A00")
            #expect(withoutToken.status == .forbidden)
            let food = try await client.send(.get, "/browse/\(HKCorrelationType(.food).identifier)/add", cookie: cookie)
            #expect(food.status == .ok && food.body.contains("is not added here"))
            let foodPost = try await Self.add(client, cookie, HKCorrelationType(.food).identifier, "start=2025-11-26T08%3A00")
            #expect(foodPost.status == .badRequest)
            let unknown = try await client.send(.get, "/browse/noSuchType/add", cookie: cookie)
            #expect(unknown.status == .notFound)
        }
        #expect(try await fixture.store.count(of: Self.bodyMass) == before)
    }
}
