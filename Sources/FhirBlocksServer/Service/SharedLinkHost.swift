import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore
import SmartHealthLinks

/// SMART Health Links hosted for registered wallets (issue 37; docs/smart-health-links.md): the
/// links specification's server (`POST /shl/{id}` manifests, `GET /shl/{id}?recipient=` for `U`
/// links, `GET /shl/file/{token}` file locations) and the wallet's management endpoints
/// (`/shl-links`, with the wallet's own bearer token).
///
/// The server holds ciphertext only: the key stays with the wallet. A passcode is kept as a
/// scrypt hash (``SharedLinkPasscode``); the wrong-passcode budget is counted in the store, an
/// attempt reserved before a passcode is evaluated and given back when it was right, so no more
/// wrong passcodes are evaluated than the link's limit however many arrive at once, on one server
/// or several sharing the database. Every inactive link (unknown, expired, revoked, locked)
/// answers the same 404. Every request for a known link is kept in its access log and is an
/// audit entry about the wallet (`shared-link-access`: the recipient as agent).
final class SharedLinkHost: TrustEndpoints {
    /// The hosted links, their files, accesses and locations.
    let linkStore: any LinkStore
    let trustLedger: TrustLedger
    let committer: ChangeCommitter

    /// The longest recipient name read (characters).
    static let maximumRecipientLength = 200
    /// The longest passcode read or set (characters).
    static let maximumPasscodeLength = 200
    /// The largest manifest request body (bytes).
    static let maximumManifestRequestBytes = 16 * 1024
    /// The largest management request body (bytes): the link's encrypted files.
    static let maximumManagementBytes = 24 << 20
    /// The largest single encrypted file (characters of its JWE).
    static let maximumFileLength = 16 << 20
    /// The most files a link has.
    static let maximumFileCount = 100
    /// The wrong passcodes a link tolerates when the wallet does not say.
    static let defaultAttempts = 10
    /// The most wrong passcodes a wallet may allow.
    static let maximumAttempts = 1_000
    /// How long a file location answers (seconds): at most one hour, as the specification asks.
    static let locationLifetime: Int64 = 3_600
    /// How often one recipient may fetch a long-term link's manifest (seconds): faster polling
    /// answers 429 with `Retry-After`.
    static let pollInterval: Int64 = 60
    /// How many links a wallet lists at most.
    static let maximumListed = 500
    /// How many accesses a listed link carries.
    static let accessesListed = 100
    /// The longest manifest URL (the links specification's limit).
    static let maximumManifestURLLength = 128

    /// Who polled each long-term link lately, for the polling limit (bounded, per link).
    let polls: SharedLinkPollLimiter
    /// The requests for one passcode link, one at a time, so none reads the link as locked
    /// while its last attempt is taken by a passcode still being evaluated.
    let passcodeGate = SharedLinkPasscodeGate()

    init(linkStore: any LinkStore, trustLedger: TrustLedger, committer: ChangeCommitter,
         polls: SharedLinkPollLimiter = SharedLinkPollLimiter(intervalSeconds: SharedLinkHost.pollInterval)) {
        self.linkStore = linkStore
        self.trustLedger = trustLedger
        self.committer = committer
        self.polls = polls
    }

    /// Why the server refuses to host a link for a well-formed request: its own configuration.
    enum HostingRefusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The server's public URL makes a manifest URL longer than the links specification's
        /// 128 characters (`manifestURLLength` with a 43-character id).
        case publicURLTooLong(manifestURLLength: Int)

        /// The `error` code of the answer, as clients match it.
        var errorCode: String {
            switch self {
            case .publicURLTooLong: "public_url_too_long"
            }
        }

        var description: String {
            switch self {
            case .publicURLTooLong(let length):
                "this server's public URL is too long to host links: a link's manifest URL ({public-url}/shl/ and a 43-character id) "
                    + "would have \(length) characters, and the links specification allows at most \(SharedLinkHost.maximumManifestURLLength); "
                    + "start the server with a public URL of at most \(SharedLinkHost.maximumPublicURLLength) characters "
                    + "(this one has \(length - SharedLinkHost.manifestURLSuffixLength))"
            }
        }

        /// The answer: 409 (the request is fine; the server's configuration conflicts with it).
        var response: ServiceResponse {
            .json(SharedLinkHost.errorBody(errorCode, description), status: 409, headers: [("Cache-Control", "no-store")])
        }
    }

    /// What a manifest URL adds to the public URL: `/shl/` and a 43-character id.
    static let manifestURLSuffixLength = "/shl/".count + 43
    /// The longest public URL whose manifest URLs fit the links specification's 128 characters.
    static let maximumPublicURLLength = maximumManifestURLLength - manifestURLSuffixLength

    /// The refusal to host links at all with this server's public URL, nil when links fit.
    func hostingRefusal() -> HostingRefusal? {
        let length = self.baseURL.count + Self.manifestURLSuffixLength
        return length > Self.maximumManifestURLLength ? .publicURLTooLong(manifestURLLength: length) : nil
    }

    // MARK: Public link endpoints

    /// The headers of every public link answer: open CORS, never cached.
    static let publicHeaders: [(String, String)] = [
        ("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", "Retry-After"), ("Cache-Control", "no-store"),
    ]

    /// `OPTIONS` on a public link endpoint: the CORS preflight.
    static func preflight() -> ServiceResponse {
        ServiceResponse(status: 204, contentType: "text/plain", headers: publicHeaders + [
            ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"), ("Access-Control-Allow-Headers", "Content-Type"),
            ("Access-Control-Max-Age", "86400"),
        ], body: [])
    }

    /// A public answer with `body` as JSON.
    static func publicJSON(_ value: JSONValue, status: Int = 200, headers: [(String, String)] = []) -> ServiceResponse {
        .json(value, status: status, headers: publicHeaders + headers)
    }

    /// The one answer of every inactive link: unknown, expired, revoked or locked alike.
    static func notActive() -> ServiceResponse {
        publicJSON(errorBody("not_found", "no active link at this address"), status: 404)
    }

    static func badRequest(_ description: String) -> ServiceResponse {
        publicJSON(errorBody("invalid_request", description), status: 400)
    }

    static func errorBody(_ code: String, _ description: String) -> JSONValue {
        .object(JSONObject(members: [JSONMember(key: "error", value: .string(code)), JSONMember(key: "error_description", value: .string(description))]))
    }

    /// Whether `id` is a link id: 43 base64url characters.
    static func isLinkID(_ id: String) -> Bool {
        id.utf8.count == 43 && id.utf8.allSatisfy(Base64URL.isAlphabet)
    }

    /// Why a link does not answer now, nil when it is active (the passcode aside): revoked,
    /// expired, or locked (no passcode attempt left).
    func refusal(_ link: StoredSharedLink, now: Timestamp) -> String? {
        if link.revokedAt != nil { return "refused-revoked" }
        if let expires = link.expiresAt, expires <= now { return "refused-expired" }
        if link.attemptsLeft == 0 { return "refused-locked" }
        return nil
    }

    /// `POST /shl/{id}`: the manifest for `{recipient, passcode?, embeddedLengthMax?}`.
    func manifest(id: String, body: [UInt8]) async -> ServiceResponse {
        let request: SHLManifestRequest
        switch Self.readManifestRequest(body) {
        case .success(let read): request = read
        case .failure(let problem): return Self.badRequest(problem.reason)
        }
        guard Self.isLinkID(id) else { return Self.notActive() }
        let link: StoredSharedLink
        do {
            guard let found = try await self.linkStore.sharedLink(id: id) else { return Self.notActive() }
            link = found
        } catch {
            return .error(.storageFailure("the link could not be read"))
        }
        guard link.passcodeHash != nil else { return await manifest(link, request: request, now: self.now) }
        // A passcode link: one request at a time on this server, the link read again inside, so
        // a request arriving while another's passcode holds the last attempt waits for its
        // verdict instead of reading the link as locked.
        return await passcodeGate.serialized(id) { () async -> ServiceResponse in
            let now = self.now
            do {
                guard let current = try await self.linkStore.sharedLink(id: id) else { return Self.notActive() }
                return await self.manifest(current, request: request, now: now)
            } catch {
                return .error(.storageFailure("the link could not be read"))
            }
        }
    }

    /// The answer for known link `link`: refused when inactive, else (after the polling limit
    /// of a long-term link) its manifest.
    private func manifest(_ link: StoredSharedLink, request: SHLManifestRequest, now: Timestamp) async -> ServiceResponse {
        let id = link.id
        if let refused = refusal(link, now: now) {
            return await refuse(link, recipient: request.recipient, outcome: refused, now: now)
        }
        guard SHLinkFlags(letters: link.flags).contains(.longTerm) else { return await serveManifest(link, request: request, now: now) }
        if case .wait(let seconds) = polls.reserve(link: id, recipient: request.recipient, now: now) {
            await log(link, recipient: request.recipient, outcome: "too-many-requests", now: now)
            return Self.publicJSON(Self.errorBody("too_many_requests", "poll this link at most every \(Self.pollInterval) seconds"),
                                   status: 429, headers: [("Retry-After", String(seconds))])
        }
        let answer = await serveManifest(link, request: request, now: now)
        // Only a manifest served counts as a poll: after a wrong passcode or a failure the
        // recipient may try again at once.
        if answer.status != 200 { polls.cancel(link: id, recipient: request.recipient, at: now) }
        return answer
    }

    /// The manifest of active link `link` (the polling limit passed), after its passcode.
    private func serveManifest(_ link: StoredSharedLink, request: SHLManifestRequest, now: Timestamp) async -> ServiceResponse {
        let id = link.id
        let flags = SHLinkFlags(letters: link.flags)
        if let stored = link.passcodeHash {
            if let refusal = await checkPasscode(request.passcode, stored: stored, link: link, recipient: request.recipient, now: now) {
                return refusal
            }
        }
        let files: [StoredSharedLinkFile]
        do {
            files = try await self.linkStore.sharedLinkFiles(id: id)
        } catch {
            return .error(.storageFailure("the link's files could not be read"))
        }
        var locations: [SharedLinkLocation] = []
        var entries: [JSONValue] = []
        let lastUpdated = link.updatedAt.wireText
        for (position, file) in files.enumerated() {
            var entry = JSONObject()
            entry.append("contentType", file.contentType)
            // Embedded only when the receiver asked and the file is no longer than it allows.
            if let maximum = request.embeddedLengthMax, file.jwe.utf8.count <= maximum {
                entry.append("embedded", file.jwe)
            } else {
                let token = SHLink.newManifestID()
                locations.append(SharedLinkLocation(token: token, linkID: id, position: position, expiresAt: now.adding(seconds: Self.locationLifetime)))
                entry.append("location", self.baseURL + "/shl/file/" + token)
            }
            entry.append("lastUpdated", lastUpdated)
            if flags.contains(.longTerm) { entry.append("status", "can-change") }
            entries.append(.object(entry))
        }
        if !locations.isEmpty {
            do {
                try await self.linkStore.addSharedLinkLocations(locations, now: now)
            } catch {
                return .error(.storageFailure("the file locations could not be stored"))
            }
        }
        guard await log(link, recipient: request.recipient, outcome: "opened", now: now) else {
            return .error(.storageFailure("the access could not be recorded"))
        }
        var manifest = JSONObject()
        manifest.append("files", .array(entries))
        var headers: [(String, String)] = []
        if flags.contains(.longTerm) {
            manifest.append("status", "can-change")
            headers.append(("Retry-After", String(Self.pollInterval)))
        }
        return Self.publicJSON(.object(manifest), headers: headers)
    }

    /// `GET /shl/{id}?recipient=…` of a `U` link: its single encrypted file.
    func directFile(id: String, recipient: String?) async -> ServiceResponse {
        guard let recipient, !recipient.isEmpty else { return Self.badRequest("the query needs a \"recipient\": who is opening the link") }
        guard recipient.count <= Self.maximumRecipientLength else {
            return Self.badRequest("\"recipient\" is longer than \(Self.maximumRecipientLength) characters")
        }
        guard !Self.hasControlCharacters(recipient) else { return Self.badRequest(Self.controlCharactersReason) }
        guard Self.isLinkID(id) else { return Self.notActive() }
        let now = self.now
        do {
            guard let link = try await self.linkStore.sharedLink(id: id), SHLinkFlags(letters: link.flags).contains(.direct) else {
                return Self.notActive()
            }
            if let refused = refusal(link, now: now) { return await refuse(link, recipient: recipient, outcome: refused, now: now) }
            guard let file = try await self.linkStore.sharedLinkFile(id: id, position: 0) else { return Self.notActive() }
            guard await log(link, recipient: recipient, outcome: "opened", now: now) else {
                return .error(.storageFailure("the access could not be recorded"))
            }
            return ServiceResponse(status: 200, contentType: "application/jose", headers: Self.publicHeaders, body: Array(file.jwe.utf8))
        } catch {
            return .error(.storageFailure("the link could not be read"))
        }
    }

    /// `GET /shl/file/{token}`: a file location handed out in a manifest, for at most an hour
    /// and while its link is active.
    func location(token: String) async -> ServiceResponse {
        guard Self.isLinkID(token) else { return Self.notActive() }
        let now = self.now
        do {
            guard let location = try await self.linkStore.sharedLinkLocation(token: token), location.expiresAt > now,
                  var link = try await self.linkStore.sharedLink(id: location.linkID) else {
                return Self.notActive()
            }
            if link.passcodeHash != nil, link.attemptsLeft == 0 {
                // No attempt left may mean one taken by a passcode being evaluated: read the
                // link again once that evaluation is over.
                let linkID = link.id
                let settled: Result<StoredSharedLink?, TrustStoreError> = await passcodeGate.serialized(linkID) {
                    do throws(TrustStoreError) {
                        return .success(try await self.linkStore.sharedLink(id: linkID))
                    } catch {
                        return .failure(error)
                    }
                }
                guard let current = try settled.get() else { return Self.notActive() }
                link = current
            }
            guard refusal(link, now: now) == nil,
                  let file = try await self.linkStore.sharedLinkFile(id: location.linkID, position: location.position) else {
                return Self.notActive()
            }
            return ServiceResponse(status: 200, contentType: "application/jose", headers: Self.publicHeaders, body: Array(file.jwe.utf8))
        } catch {
            return .error(.storageFailure("the file could not be read"))
        }
    }

    /// A manifest request read as the specification has it (``SHLManifestRequest``), after the
    /// length checks this server words itself.
    struct ManifestRequestProblem: Error, Sendable, Hashable {
        /// What is wrong, in words.
        let reason: String
    }

    /// Whether a recipient holds control characters (C0, DEL, C1): a name shown to the sharer in
    /// the access log, `health share list` and `health wallet audit` never needs them, and they
    /// could rewrite the sharer's terminal.
    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    static let controlCharactersReason = "\"recipient\" holds control characters"

    /// Reads a manifest request body: JSON, a non-empty `recipient` and an optional `passcode`
    /// of at most 200 characters, an optional whole `embeddedLengthMax`.
    static func readManifestRequest(_ body: [UInt8]) -> Result<SHLManifestRequest, ManifestRequestProblem> {
        guard body.count <= maximumManifestRequestBytes else {
            return .failure(ManifestRequestProblem(reason: "the request is larger than \(maximumManifestRequestBytes) bytes"))
        }
        if let object = (try? JSONParser.parse(body, maximumDepth: 8))?.objectValue {
            if let recipient = object["recipient"]?.stringValue, recipient.count > maximumRecipientLength {
                return .failure(ManifestRequestProblem(reason: "\"recipient\" is longer than \(maximumRecipientLength) characters"))
            }
            if let recipient = object["recipient"]?.stringValue, hasControlCharacters(recipient) {
                return .failure(ManifestRequestProblem(reason: Self.controlCharactersReason))
            }
            if let passcode = object["passcode"]?.stringValue, passcode.count > maximumPasscodeLength {
                return .failure(ManifestRequestProblem(reason: "\"passcode\" is longer than \(maximumPasscodeLength) characters"))
            }
        }
        do {
            return .success(try SHLManifestRequest(json: body))
        } catch {
            return .failure(ManifestRequestProblem(reason: error.description))
        }
    }

    /// Checks a passcode against a link's hash: nil when right (the reserved attempt given
    /// back), else the answer (401 with the attempts left, or 404 once none is left).
    private func checkPasscode(_ passcode: String?, stored: String, link: StoredSharedLink, recipient: String, now: Timestamp) async -> ServiceResponse? {
        guard let passcode, !passcode.isEmpty else {
            // No passcode given: nothing is evaluated, nothing is counted.
            guard let left = link.attemptsLeft, left > 0 else { return await refuse(link, recipient: recipient, outcome: "refused-locked", now: now) }
            await log(link, recipient: recipient, outcome: "passcode-missing", now: now)
            return Self.publicJSON(.object(JSONObject(members: [JSONMember(key: "remainingAttempts", value: .number(String(left)))])), status: 401)
        }
        let left: Int
        do {
            guard let reserved = try await self.linkStore.reserveSharedLinkAttempt(id: link.id) else {
                return await refuse(link, recipient: recipient, outcome: "refused-locked", now: now)
            }
            left = reserved
        } catch {
            return .error(.storageFailure("the link could not be read"))
        }
        if await SharedLinkPasscode.matches(passcode, stored: stored) {
            do {
                try await self.linkStore.returnSharedLinkAttempt(id: link.id)
            } catch {
                return .error(.storageFailure("the link could not be updated"))
            }
            return nil
        }
        await log(link, recipient: recipient, outcome: "wrong-passcode", now: now)
        return Self.publicJSON(.object(JSONObject(members: [JSONMember(key: "remainingAttempts", value: .number(String(left)))])), status: 401)
    }

    /// Logs a refusal and answers the uniform 404.
    private func refuse(_ link: StoredSharedLink, recipient: String, outcome: String, now: Timestamp) async -> ServiceResponse {
        await log(link, recipient: recipient, outcome: outcome, now: now)
        return Self.notActive()
    }

    /// Keeps the access in the link's log and as an audit entry about the wallet, in one
    /// transaction (``FhirBlocksStore/TrustChange/sharedLinkAccesses``): both are stored or
    /// neither; false when they could not be.
    @discardableResult
    private func log(_ link: StoredSharedLink, recipient: String, outcome: String, now: Timestamp) async -> Bool {
        let access = StoredSharedLinkAccess(linkID: link.id, recipient: recipient, at: now, outcome: outcome)
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: Self.auditEntry(access, owner: link.owner))]
        change.sharedLinkAccesses = [access]
        do {
            _ = try await self.commit(change)
            return true
        } catch {
            return false
        }
    }

    /// The audit entry about the wallet of a request for its link: the recipient as agent, the
    /// link by its id's first 8 characters, and a refusal's outcome as its reason.
    static func auditEntry(_ access: StoredSharedLinkAccess, owner: CsiGuid) -> AuditEntry {
        AuditEntry(type: .sharedLinkAccess, recorded: access.at, outcome: access.opened ? .success : .minorFailure, agent: access.recipient,
                   patient: owner.rawValue, resources: ["shl/" + access.linkID.prefix(8)], reason: access.opened ? nil : access.outcome)
    }

    // MARK: Management (the wallet)

    /// The wallet a bearer header authenticates: its own token over its own data.
    private func authenticatedOwner(_ request: ServiceRequest) async -> Result<CsiGuid, SMOACError> {
        guard request.headers["authorization"] != nil else { return .failure(.invalidClient("a wallet's bearer token is required")) }
        guard let access = await self.trustLedger.bearer(authorization: request.headers["authorization"]) else {
            return .failure(.invalidClient("the bearer token is not active"))
        }
        let client = access.token.client
        guard client == access.token.patient, self.ledger.wallets.contains(client) else {
            return .failure(.accessDenied("only a wallet, with a token over its own data, manages its links"))
        }
        return .success(client)
    }

    /// `POST /shl-links`: a new link for the wallet (409 `public_url_too_long` when this
    /// server's public URL makes manifest URLs longer than 128 characters).
    func create(_ request: ServiceRequest) async -> ServiceResponse {
        let owner: CsiGuid
        switch await authenticatedOwner(request) {
        case .success(let wallet): owner = wallet
        case .failure(let error): return .error(error)
        }
        if let refusal = hostingRefusal() { return refusal.response }
        let now = self.now
        let body: JSONObjectFields
        let files: [StoredSharedLinkFile]
        do {
            body = try Self.object(request.body)
            files = try Self.files(body)
        } catch {
            return .error(error)
        }
        let passcode: String?, attempts: Int64?, expires: Int64?, label: String?, longTerm: Bool, direct: Bool
        do {
            passcode = try body.optionalString("passcode")
            attempts = try body.optionalInteger("attempts")
            expires = try body.optionalInteger("expires")
            label = try body.optionalString("label")
            longTerm = try body.optionalBool("longTerm") ?? false
            direct = try body.optionalBool("direct") ?? false
        } catch {
            return .error(.malformedRequest(Self.words(error)))
        }
        if let passcode, passcode.isEmpty || passcode.count > Self.maximumPasscodeLength {
            return .error(.malformedRequest("a passcode has 1 to \(Self.maximumPasscodeLength) characters"))
        }
        if direct && passcode != nil { return .error(.malformedRequest("a direct link (U) cannot have a passcode")) }
        if direct && longTerm { return .error(.malformedRequest("a direct link (U) cannot be long-term (L)")) }
        if direct && files.count != 1 { return .error(.malformedRequest("a direct link (U) has exactly one file")) }
        if let attempts, !(1...Int64(Self.maximumAttempts)).contains(attempts) {
            return .error(.malformedRequest("attempts is between 1 and \(Self.maximumAttempts)"))
        }
        if attempts != nil && passcode == nil { return .error(.malformedRequest("attempts needs a passcode")) }
        if let expires, expires <= now.secondsSince1970 || expires > 253_402_300_799 {
            return .error(.malformedRequest("expires is a future time in epoch seconds"))
        }
        if let label, label.count > SHLink.maximumLabelLength {
            return .error(.malformedRequest("a label has at most \(SHLink.maximumLabelLength) characters"))
        }
        let id = SHLink.newManifestID()
        var hash: String?
        if let passcode {
            guard let made = await SharedLinkPasscode.hash(passcode) else { return .error(.storageFailure("the passcode could not be hashed")) }
            hash = made
        }
        var letters = ""
        if longTerm { letters += "L" }
        if passcode != nil { letters += "P" }
        if direct { letters += "U" }
        let link = StoredSharedLink(id: id, owner: owner, flags: letters, label: label, expiresAt: expires.map(Timestamp.init(secondsSince1970:)),
                                    createdAt: now, updatedAt: now, passcodeHash: hash,
                                    attemptsLeft: passcode == nil ? nil : Int(attempts ?? Int64(Self.defaultAttempts)), fileCount: files.count)
        do {
            try await self.linkStore.createSharedLink(link, files: files)
        } catch {
            return .error(.storageFailure("the link could not be stored"))
        }
        return .json(record(link, accesses: [], now: now), status: 201, headers: [("Cache-Control", "no-store")])
    }

    /// `GET /shl-links[?cursor=…]`: one page of the wallet's links, newest first, each with
    /// its latest accesses: at most ``maximumListed``, and `next` (the cursor of the following
    /// page) when more follow.
    func list(_ request: ServiceRequest) async -> ServiceResponse {
        let owner: CsiGuid
        switch await authenticatedOwner(request) {
        case .success(let wallet): owner = wallet
        case .failure(let error): return .error(error)
        }
        var after: SharedLinkListPosition?
        if let cursor = request.query["cursor"] {
            guard let position = Self.position(cursor: cursor) else { return .error(.malformedRequest("cursor is not a cursor this server wrote")) }
            after = position
        }
        let now = self.now
        do {
            var links = try await self.linkStore.sharedLinks(owner: owner, limit: Self.maximumListed + 1, after: after)
            let more = links.count > Self.maximumListed
            if more { links.removeLast(links.count - Self.maximumListed) }
            var records: [JSONValue] = []
            for link in links {
                records.append(record(link, accesses: try await self.linkStore.sharedLinkAccesses(id: link.id, limit: Self.accessesListed), now: now))
            }
            var page = JSONObject(members: [JSONMember(key: "links", value: .array(records))])
            if more, let last = links.last { page.append("next", Self.cursor(SharedLinkListPosition(after: last))) }
            return .json(.object(page), headers: [("Cache-Control", "no-store")])
        } catch {
            return .error(.storageFailure("the links could not be read"))
        }
    }

    /// The cursor of the page after `position`: `{created milliseconds}.{id}`.
    static func cursor(_ position: SharedLinkListPosition) -> String {
        "\(position.createdAt.millisecondsSince1970).\(position.id)"
    }

    /// The position a ``cursor(_:)`` names, nil for any other text.
    static func position(cursor: String) -> SharedLinkListPosition? {
        let parts = cursor.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...19).contains(parts[0].utf8.count), parts[0].utf8.allSatisfy({ (48...57).contains($0) }),
              let milliseconds = Int64(parts[0]), isLinkID(String(parts[1])) else { return nil }
        return SharedLinkListPosition(createdAt: Timestamp(millisecondsSince1970: milliseconds), id: String(parts[1]))
    }

    /// `PUT /shl-links/{id}` `{"files": […]}`: the link's new files (a long-term link's update).
    func update(id: String, _ request: ServiceRequest) async -> ServiceResponse {
        let owner: CsiGuid
        switch await authenticatedOwner(request) {
        case .success(let wallet): owner = wallet
        case .failure(let error): return .error(error)
        }
        let files: [StoredSharedLinkFile]
        do {
            files = try Self.files(try Self.object(request.body))
        } catch {
            return .error(error)
        }
        let now = self.now
        do {
            guard Self.isLinkID(id), let link = try await self.linkStore.sharedLink(id: id), link.owner == owner, link.revokedAt == nil else {
                return .error(.unknownTarget("this wallet has no active link with this id"))
            }
            if SHLinkFlags(letters: link.flags).contains(.direct) && files.count != 1 {
                return .error(.malformedRequest("a direct link (U) has exactly one file"))
            }
            guard try await self.linkStore.replaceSharedLinkFiles(id: id, owner: owner, files: files, at: now),
                  let updated = try await self.linkStore.sharedLink(id: id) else {
                return .error(.unknownTarget("this wallet has no active link with this id"))
            }
            return .json(record(updated, accesses: try await self.linkStore.sharedLinkAccesses(id: id, limit: Self.accessesListed), now: now),
                         headers: [("Cache-Control", "no-store")])
        } catch {
            return .error(.storageFailure("the link could not be updated"))
        }
    }

    /// `DELETE /shl-links/{id}`: revokes the link (its manifest and files answer 404 from now on).
    func revoke(id: String, _ request: ServiceRequest) async -> ServiceResponse {
        let owner: CsiGuid
        switch await authenticatedOwner(request) {
        case .success(let wallet): owner = wallet
        case .failure(let error): return .error(error)
        }
        do {
            guard Self.isLinkID(id), try await self.linkStore.revokeSharedLink(id: id, owner: owner, at: self.now) else {
                return .error(.unknownTarget("this wallet has no link with this id"))
            }
            return ServiceResponse(status: 204, contentType: "text/plain", headers: [("Cache-Control", "no-store")], body: [])
        } catch {
            return .error(.storageFailure("the link could not be revoked"))
        }
    }

    // MARK: Wire

    /// A link as the management endpoints describe it.
    func record(_ link: StoredSharedLink, accesses: [StoredSharedLinkAccess], now: Timestamp) -> JSONValue {
        let status = if link.revokedAt != nil { "revoked" } else if let expires = link.expiresAt, expires <= now { "expired" }
            else if link.attemptsLeft == 0 { "locked" } else { "active" }
        var object = JSONObject()
        object.append("id", link.id)
        object.append("manifestURL", self.baseURL + "/shl/" + link.id)
        object.append("flags", link.flags)
        if let label = link.label { object.append("label", label) }
        if let expires = link.expiresAt { object.append("expires", .number(String(expires.secondsSince1970))) }
        object.append("created", .number(String(link.createdAt.secondsSince1970)))
        object.append("status", status)
        if let left = link.attemptsLeft { object.append("remainingAttempts", .number(String(left))) }
        object.append("fileCount", .number(String(link.fileCount)))
        object.append("accesses", .array(accesses.map { access in
            .object(JSONObject(members: [JSONMember(key: "recipient", value: .string(access.recipient)),
                                         JSONMember(key: "at", value: .number(String(access.at.secondsSince1970))),
                                         JSONMember(key: "outcome", value: .string(access.outcome))]))
        }))
        return .object(object)
    }

    static func object(_ body: [UInt8]) throws(SMOACError) -> JSONObjectFields {
        guard let value = try? JSONParser.parse(body, maximumDepth: 8), let fields = JSONObjectFields(value) else {
            throw .malformedRequest("the body must be a JSON object")
        }
        return fields
    }

    static func words(_ failure: JSONObjectFields.Failure) -> String {
        switch failure {
        case .missing(let member): "\"\(member)\" is missing"
        case .wrongKind(let member, let expected, _): "\"\(member)\" is not \(expected)"
        }
    }

    /// The `files` of a management body: 1 to 100 `{contentType, jwe}`, each JWE compact with
    /// `alg: dir` and `enc: A256GCM`.
    static func files(_ body: JSONObjectFields) throws(SMOACError) -> [StoredSharedLinkFile] {
        let entries: [JSONValue]
        do { entries = try body.array("files") } catch { throw .malformedRequest(words(error)) }
        guard (1...maximumFileCount).contains(entries.count) else { throw .malformedRequest("a link has 1 to \(maximumFileCount) files") }
        var files: [StoredSharedLinkFile] = []
        for (index, entry) in entries.enumerated() {
            guard let object = entry.objectValue, let contentType = object["contentType"]?.stringValue, let jwe = object["jwe"]?.stringValue else {
                throw .malformedRequest("files[\(index)] needs a \"contentType\" and a \"jwe\" (strings)")
            }
            guard !contentType.isEmpty, contentType.utf8.count <= 100, contentType.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
                throw .malformedRequest("files[\(index)].contentType is not a content type")
            }
            guard jwe.utf8.count <= maximumFileLength else { throw .malformedRequest("files[\(index)] is larger than \(maximumFileLength) characters") }
            guard isDirectJWE(jwe) else {
                throw .malformedRequest("files[\(index)].jwe is not a JWE compact serialization with alg \"dir\" and enc \"A256GCM\"")
            }
            files.append(StoredSharedLinkFile(contentType: contentType, jwe: jwe))
        }
        return files
    }

    /// Whether `jwe` has the shape of a link's file: five base64url parts, an empty encrypted
    /// key, a protected header naming `alg: dir` and `enc: A256GCM`, a 96-bit IV and a 128-bit tag.
    static func isDirectJWE(_ jwe: String) -> Bool {
        let parts = jwe.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 5, parts[1].isEmpty, parts.allSatisfy({ $0.allSatisfy(Base64URL.isAlphabet) }),
              let header = try? Base64URL.decode(parts[0]), let iv = try? Base64URL.decode(parts[2]), iv.count == 12,
              let tag = try? Base64URL.decode(parts[4]), tag.count == 16, !parts[3].isEmpty,
              let object = (try? JSONParser.parse(header, maximumDepth: 4))?.objectValue else { return false }
        return object["alg"]?.stringValue == "dir" && object["enc"]?.stringValue == "A256GCM"
    }
}
