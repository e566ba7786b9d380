import Foundation
import HTTPTypes
import HealthWebApp
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenHealthKit
import SmartHealthCards
import TestSupport

/// An in-memory owner store with a few days of seeded data, the web application over it (UTC
/// calendar, a fixed "now"), and helpers to talk to its router with or without the session.
struct WebTestFixture: Sendable {
    static let now = Date(timeIntervalSince1970: 1_764_158_400) // 2025-11-26 12:00 UTC
    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }

    let store: HKHealthStore
    let webApp: HealthWebApp

    /// A store with `days` days of steps (two sources, hourly), heart rate, weight, blood pressure and sleep.
    /// `verifier` checks cards (nil: the application's default, which knows no issuer keys).
    static func make(days: Int = 10, seed: UInt64 = 17, uploadLimit: Int = 1 << 20, verifier: SHCVerifier? = nil) async throws -> WebTestFixture {
        let store = HKHealthStore(configuration: .init(location: .inMemory, source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"),
                                                       role: .owner))
        try store.open()
        var random = SplitMix64(seed: seed)
        let today = calendar.startOfDay(for: now)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        var samples: [HKSample] = []
        for offset in stride(from: -days + 1, through: 0, by: 1) {
            let day = today.addingTimeInterval(Double(offset) * 86_400)
            func at(_ hour: Double) -> Date { day.addingTimeInterval(hour * 3600) }
            for hour in 8..<11 {
                samples.append(HKQuantitySample(type: HKQuantityType(.stepCount),
                                                quantity: HKQuantity(unit: .count(), doubleValue: Double(random.int(100...900))),
                                                start: at(Double(hour)), end: at(Double(hour) + 1)))
            }
            for slot in 0..<6 {
                samples.append(HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: Double(random.int(55...120))),
                                                start: at(Double(slot) * 2 + 0.5), end: at(Double(slot) * 2 + 0.5)))
            }
            samples.append(HKQuantitySample(type: HKQuantityType(.bodyMass),
                                            quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 70 + Double(random.int(0...20)) / 10),
                                            start: at(7), end: at(7)))
            let systolic = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic),
                                            quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: Double(random.int(110...130))),
                                            start: at(7.2), end: at(7.2))
            let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic),
                                             quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: Double(random.int(70...85))),
                                             start: at(7.2), end: at(7.2))
            samples.append(HKCorrelation(type: HKCorrelationType(.bloodPressure), start: at(7.2), end: at(7.2), objects: [systolic, diastolic]))
            samples.append(HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepCore.rawValue,
                                            start: at(-1), end: at(3)))
            samples.append(HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepDeep.rawValue,
                                            start: at(3), end: at(4.5)))
        }
        try await store.save(samples)
        let webApp = try HealthWebApp(store: store, uploadLimit: uploadLimit, calendar: calendar, clock: { now },
                                      verifier: verifier)
        return WebTestFixture(store: store, webApp: webApp)
    }

    /// Runs `body` with a client of the application's router.
    func withClient<Value: Sendable>(_ body: @Sendable (WebClient) async throws -> Value) async throws -> Value {
        let application = Application(router: webApp.router())
        let webApp = self.webApp
        return try await application.test(.router) { client in try await body(WebClient(client: client, webApp: webApp)) }
    }
}

/// One answer.
struct WebAnswer: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: String
}

/// A browser's side of the exchange: its cookie, if it has one.
struct WebClient: Sendable {
    let client: any TestClientProtocol
    let webApp: HealthWebApp

    func send(_ method: HTTPRequest.Method = .get, _ path: String, cookie: String? = nil, form: String? = nil,
              multipart: MultipartBody? = nil) async throws -> WebAnswer {
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = cookie }
        if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        if let multipart { headers[.contentType] = "multipart/form-data; boundary=\(multipart.boundary)" }
        let body = form.map { ByteBuffer(string: $0) } ?? multipart.map { ByteBuffer(bytes: $0.bytes) }
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body)
        return WebAnswer(status: response.status, headers: response.headers, body: String(buffer: response.body))
    }

    /// Trades the start secret for the session cookie ("ohk_session=…").
    func startSession() async throws -> String {
        let answer = try await send(.get, "/session?secret=\(webApp.session.startSecret)")
        guard let setCookie = answer.headers[.setCookie], let pair = setCookie.split(separator: ";").first else {
            throw WebTestFailure("no session cookie: \(answer.status)")
        }
        return String(pair)
    }

    /// The session's CSRF token.
    func csrf(_ cookie: String) -> String {
        webApp.session.csrfToken(for: String(cookie.dropFirst(WebSession.cookieName.count + 1)))
    }
}

struct WebTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension HKHealthStore {
    /// How many samples of a type the store holds.
    func count(of type: HKSampleType) async throws -> Int {
        try await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: []).result(for: self).count
    }

    /// The newest sample of a type.
    func newest(of type: HKSampleType) async throws -> HKSample? {
        try await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: [SortDescriptor(\HKSample.startDate, order: .reverse)],
                                          limit: 1).result(for: self).first
    }
}

/// The `data-…` attributes of the SVG elements with a class, in document order.
enum SVGAttributes {
    static func values(_ html: String, element: String, className: String, attribute: String) -> [String] {
        var found: [String] = []
        var rest = Substring(html)
        let opening = "<\(element) class=\"\(className)\""
        while let start = rest.range(of: opening) {
            let tail = rest[start.upperBound...]
            guard let close = tail.firstIndex(of: ">") else { break }
            let tag = tail[..<close]
            if let attributeStart = tag.range(of: " \(attribute)=\"") {
                let value = tag[attributeStart.upperBound...].prefix { $0 != "\"" }
                found.append(String(value))
            }
            rest = tail[close...]
        }
        return found
    }
}
