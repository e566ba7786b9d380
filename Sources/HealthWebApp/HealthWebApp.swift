import CommonSupport
import Foundation
import HealthRecords
import Hummingbird
import Logging
import OpenHealthKit
import SmartHealthCards
import Synchronization

/// The Health web page that `health ui` serves on 127.0.0.1: server-rendered HTML (swift-mustache
/// templates, SVG charts drawn by Swift code) over an OpenHealthKit store opened as its owner,
/// behind a one-time secret traded for a session cookie, CSRF tokens on every form and a strict
/// Content-Security-Policy. It reads and changes the store only through the public API.
public struct HealthWebApp: Sendable {
    /// The store, opened as its owner.
    public let store: HKHealthStore
    /// The session: the start secret, the cookie and the CSRF tokens.
    public let session: WebSession
    /// The largest request body accepted, in bytes.
    public let uploadLimit: Int
    /// The largest Apple Health export accepted from the import page, in bytes (its body is
    /// streamed to a temporary file, never held in memory).
    public let importLimit: Int
    /// The temporary files uploads are streamed to.
    let uploads: TemporaryUploads
    /// Verifies cards (added ones, and stored ones again): its resolver, trust policy (the VCI
    /// directory that also names issuers) and limits; nil knows no issuer keys.
    public let verifier: SHCVerifier?
    /// Whether cards are checked as of the clock's now (true) or as of the verifier's `now`.
    public let verifiesAsOfNow: Bool
    /// The background work started from the pages, with its progress.
    public let jobs = WebJobs()
    /// The Health cards page's verdicts, kept while their inputs are unchanged.
    let cardVerdicts = CardVerdictCache()
    /// Bounds how many uploads and forms hold their bodies in memory at once.
    let uploadGate = UploadGate()
    /// The person's FhirBlocks wallet, when `health ui` was given one (the Sharing page's wallet part).
    public let wallet: SharingWallet?
    /// The port the application listens on, once it does (the `Host` requests must name).
    let listeningPort = ListeningPort()
    let calendar: Calendar
    let clock: @Sendable () -> Date
    let pages: PageRenderer

    /// An application over `store`.
    /// - Parameters:
    ///   - store: the store, opened as its owner.
    ///   - session: the session (default: a new one, with a fresh start secret).
    ///   - uploadLimit: the largest request body accepted (default 8 MB); larger ones are refused with 413.
    ///   - importLimit: the largest Apple Health export the import page accepts (default 4 GiB),
    ///     streamed to an owner-only temporary file beside the store's database (the system's
    ///     temporary folder for a store in memory); larger ones are refused with 413.
    ///   - calendar: the calendar days and periods are counted in (default: the current one).
    ///   - clock: what "now" is (default: the system clock); periods end on its day.
    ///   - verifier: how cards are verified (`health ui` passes the one its `health shc verify`
    ///     options make); nil knows no issuer keys, so no card verifies.
    ///   - verifiesAsOfNow: check cards as of `clock` (default) rather than as of `verifier.now`.
    ///   - wallet: the person's FhirBlocks wallet (default: none; the Sharing page says how to connect one).
    public init(store: HKHealthStore, session: WebSession = WebSession(), uploadLimit: Int = 8 << 20, importLimit: Int = 4 << 30,
                calendar: Calendar = .current, clock: @escaping @Sendable () -> Date = { Date() },
                verifier: SHCVerifier? = nil, verifiesAsOfNow: Bool = true, wallet: SharingWallet? = nil) throws {
        self.clock = clock
        self.verifier = verifier
        self.verifiesAsOfNow = verifiesAsOfNow
        self.wallet = wallet
        self.store = store
        self.session = session
        self.uploadLimit = uploadLimit
        self.importLimit = importLimit
        self.uploads = TemporaryUploads(folder: TemporaryUploads.folder(for: store))
        self.calendar = calendar
        self.pages = try PageRenderer()
    }

    /// The URL that opens a session: the printed URL, with the one-time secret.
    public func startURL(port: Int) -> String {
        "http://127.0.0.1:\(port)/session?secret=\(session.startSecret)"
    }

    /// The routes of every page behind the session middleware.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(SessionMiddleware(session: session, pages: pages, uploadLimit: uploadLimit,
                                                  hostCheck: HostCheck(listeningPort: listeningPort), uploadGate: uploadGate,
                                                  streamedPaths: [Self.appleHealthImportPath]))
        router.get("/") { request, _ in
            // The Summary's old address (`/?period=…`) still leads to it.
            if let period = request.uri.queryParameters["period"] { return Self.redirect("/summary?period=\(Self.queryValue(String(period)))") }
            return try await pages.page(title: "Today", section: .today, content: todayContent(now: clock()))
        }
        router.get("/summary") { request, _ in
            let period = request.uri.queryParameters["period"].flatMap { SummaryPeriod(rawValue: String($0)) } ?? .week
            let end = request.uri.queryParameters["end"].flatMap { SummaryPeriod.day(String($0), calendar: calendar) }
            return try await pages.page(title: "Summary", section: .summary, content: summaryContent(period: period, now: end ?? clock()))
        }
        router.get("/browse") { request, _ in
            let text = try await sampleText()
            return try await pages.page(title: "Browse", section: .browse,
                                        content: BrowseView(store: store, pages: pages, text: text)
                                            .index(search: request.uri.queryParameters["q"].map(String.init), now: clock()))
        }
        router.get("/browse/:type") { request, context in
            let type = try sampleType(context)
            let text = try await sampleText()
            let notice = request.uri.queryParameters["deleted"].map {
                "Deleted \($0) sample(s). Recently deleted keeps them for 30 days, if you change your mind."
            }
            let query = request.uri.queryParameters
            let period = query["period"].flatMap { SummaryPeriod(rawValue: String($0)) } ?? .week
            let end = query["end"].flatMap { SummaryPeriod.day(String($0), calendar: calendar) } ?? clock()
            let content = try await TypePage(store: store, pages: pages, text: text).render(
                type, period: period, end: end, before: query["before"].flatMap { TypePageSamples.cursor(String($0)) },
                after: query["after"].flatMap { TypePageSamples.cursor(String($0)) },
                order: query["order"].flatMap { TypePage.NightOrder(rawValue: String($0)) },
                csrf: csrf(request), today: clock())
            return pages.page(title: SampleText.name(of: type), section: .browse, content: content, notice: notice)
        }
        addRecentlyDeletedRoutes(to: router)
        addDataRoutes(to: router)
        addAppleHealthImportRoutes(to: router)
        addRecordsImportRoutes(to: router)
        addCardRoutes(to: router)
        addJobRoutes(to: router)
        router.get("/records/:uuid") { _, context in
            guard let uuid = context.parameters.get("uuid").flatMap(UUID.init(uuidString:)),
                  let record = try await RecordsView(store: store, pages: pages, text: sampleText()).recordPage(uuid) else {
                throw HTTPError(.notFound, message: "There is no such health record.")
            }
            return pages.page(title: record.title, section: .records, content: record.content)
        }
        router.get("/sharing") { request, _ in
            let notice = request.uri.queryParameters["changed"].map { "Access of \($0) changed; it applies to the app's next query." }
            return try await pages.page(title: "Sharing", section: .sharing,
                                        content: SharingView(store: store, pages: pages, text: sampleText()).render(csrf: csrf(request))
                                            + walletSection(csrf: csrf(request),
                                                            auditCursor: request.uri.queryParameters["auditBefore"].flatMap { Int(String($0)) }),
                                        notice: notice ?? request.uri.queryParameters["walletChanged"].map(String.init),
                                        problem: request.uri.queryParameters["walletProblem"].map(String.init))
        }
        router.post("/sharing/revoke") { request, _ in
            let form = try await formFields(request)
            guard let bundle = form["bundle"], !bundle.isEmpty else {
                throw HTTPError(.badRequest, message: "The form did not name an app; nothing was changed.")
            }
            try store.revokeAppAuthorization(bundleIdentifier: bundle)
            return Self.redirect("/sharing?changed=\(Self.queryValue(bundle))")
        }
        router.post("/sharing/turn-off") { request, _ in
            let form = try await formFields(request)
            guard let bundle = form["bundle"], !bundle.isEmpty, let type = form["type"].flatMap(HKObjectType.sampleType(named:)) else {
                throw HTTPError(.badRequest, message: "The form did not name an app and a type; nothing was changed.")
            }
            let current = try store.appAuthorizationDecisions().first { $0.bundleIdentifier == bundle && $0.typeIdentifier == type.identifier }
            try store.setAppAuthorization(bundleIdentifier: bundle, type: type,
                                          share: current?.share == .authorized ? .denied : nil, read: .denied)
            return Self.redirect("/sharing?changed=\(Self.queryValue(bundle))")
        }
        addWalletRoutes(to: router)
        addShareRoutes(to: router)
        addSettingsRoutes(to: router)
        addProfileRoutes(to: router)
        router.get("/assets/app.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: Stylesheet.css)))
        }
        router.get("/assets/icon.svg") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/svg+xml"], body: .init(byteBuffer: ByteBuffer(string: Stylesheet.icon)))
        }
        return router
    }

    /// The application on 127.0.0.1 (only) and `port` (0: a free one); `onListening` gets the bound port.
    /// Requests must name `127.0.0.1:PORT` or `localhost:PORT` as their `Host` (421 otherwise).
    public func application(port: Int, logger: Logger = Logger(label: "health-ui"),
                            onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let listeningPort = listeningPort
        if port != 0 { listeningPort.set(port) }
        return Application(router: router(), configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
                           onServerRunning: { channel in
                               let bound = channel.localAddress?.port ?? port
                               listeningPort.set(bound)
                               await onListening(bound)
                           }, logger: logger)
    }

    /// Serves until the task is cancelled or the process gets SIGINT or SIGTERM; then removes the
    /// uploads' temporary files still there (of imports running or waiting).
    public func run(port: Int, logger: Logger = Logger(label: "health-ui"), onListening: @escaping @Sendable (Int) async -> Void) async throws {
        defer { uploads.removeAll() }
        // Records stored before the import kept their patient (and lab results their test's code)
        // get it once, in the background, from when the server listens (the pages that need it
        // wait for it if they come first); a server that cannot listen (a port in use) starts none.
        let store = store
        let pass = Mutex<Task<Void, Never>?>(nil)
        defer { pass.withLock { $0?.cancel() } }
        try await application(port: port, logger: logger) { bound in
            pass.withLock { $0 = $0 ?? Task { await Self.completeStoredRecords(in: store, logger: logger) } }
            await onListening(bound)
        }.runService()
    }

    /// The one-time passes over stored records (each a lookup once done). A server that stops
    /// cancels them, which is not a fault to report: they go on from where they were next time.
    static func completeStoredRecords(in store: HKHealthStore, logger: Logger) async {
        do { try await HealthRecordPatient.completeStoredRecords(in: store) } catch is CancellationError {
            return
        } catch {
            logger.warning("the health records' patients could not be completed: \(error)")
        }
        // And lab results their test's code, by which a result's page finds the same test's others.
        do { try await HealthRecordTestCode.completeStoredRecords(in: store) } catch is CancellationError {
            return
        } catch {
            logger.warning("the lab results' test codes could not be completed: \(error)")
        }
    }

    /// The Today page's content: today's totals, last night's sleep, the latest heart rate, weight
    /// and blood pressure, and today's workouts (its queries and its rendering).
    /// - Parameter now: what "today" is.
    public func todayContent(now: Date) async throws -> String {
        let report = try await TodayReport.load(from: store, now: now, calendar: calendar)
        return TodayView(pages: pages, text: try await sampleText()).render(report)
    }

    /// The Summary page's content for a period (its queries and its rendering; what the benchmark times).
    public func summaryContent(period: SummaryPeriod, now: Date) async throws -> String {
        let report = try await SummaryReport.load(from: store, period: period, now: now, calendar: calendar)
        let text = try await sampleText()
        var latest: [LatestValue] = []
        for sample in try await StoreCatalog.newestSamples(in: store) where TypeGroup.listed(sample.sampleType) {
            let headline = try await TypeHeadline.load(sample.sampleType, newest: sample, in: store, now: clock(), text: text)
            latest.append(LatestValue(name: SampleText.name(of: sample.sampleType), href: StoreCatalog.href(sample.sampleType), value: headline.value,
                                      date: headline.when))
        }
        return SummaryView(pages: pages, text: text).render(report, latest: latest, today: clock())
    }

    /// The session's CSRF token, for the forms of a page.
    func csrf(_ request: Request) -> String {
        request.cookies[WebSession.cookieName].map { session.csrfToken(for: $0.value) } ?? ""
    }

    /// A form's fields (the session middleware already collected the body, within the upload limit).
    func formFields(_ request: Request) async throws -> FormFields {
        var request = request
        return FormFields(String(buffer: try await request.collectBody(upTo: uploadLimit)))
    }

    /// After a form: back to a page (303, so a reload does not post again).
    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    /// A query value percent-encoded (RFC 3986 unreserved characters kept, non-ASCII letters escaped).
    static func queryValue(_ text: String) -> String {
        FormURLEncoding.percentEncoded(text)
    }

    func sampleText() async throws -> SampleText {
        let quantityTypes = Set(HKObjectType.allSampleTypes.compactMap { $0 as? HKQuantityType })
        return SampleText(units: try await store.preferredUnits(for: quantityTypes), calendar: calendar)
    }

    private func sampleType(_ context: BasicRequestContext) throws -> HKSampleType {
        guard let name = context.parameters.get("type"), let type = HKObjectType.sampleType(named: name) else {
            throw HTTPError(.notFound, message: "There is no such type.")
        }
        return type
    }
}
