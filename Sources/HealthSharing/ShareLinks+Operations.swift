import CommonSupport
import FhirBlocksClient
import Foundation
import OpenHealthKit
import SmartHealthLinks

/// What the store keeps sealed about a link it created: the key and the choice of contents,
/// so that an update re-encrypts today's content with the same key.
struct SealedShareLink: Codable, Sendable, Hashable {
    /// The link's 32-byte key, base64url.
    var key: String
    /// The contents, as ``ShareContent/storageText`` writes them.
    var contents: [String]
    var longTerm: Bool
    var direct: Bool
    var manifestURL: String

    var keyBytes: [UInt8]? {
        guard let bytes = try? Base64URL.decode(key), bytes.count == SHLink.keyByteCount else { return nil }
        return bytes
    }

    func encoded() throws(ShareError) -> Data {
        do {
            return try JSONEncoder().encode(self)
        } catch {
            throw .store("cannot encode the link's sealed state: \(error)")
        }
    }

    static func decode(_ data: Data) throws(ShareError) -> SealedShareLink {
        do {
            return try JSONDecoder().decode(SealedShareLink.self, from: data)
        } catch {
            throw .store("the link's sealed state in the store is unreadable")
        }
    }
}

extension ShareContent {
    /// How the store keeps this part: `summary`, `cards`, `records:T1,T2`, `record:UUID`, `card:UUID`.
    var storageText: String {
        switch self {
        case .summary: "summary"
        case .cards: "cards"
        case .records(let types): "records:" + types.joined(separator: ",")
        case .record(let uuid): "record:" + uuid.uuidString
        case .card(let uuid): "card:" + uuid.uuidString
        }
    }

    init?(storageText text: String) {
        if text == "summary" { self = .summary; return }
        if text == "cards" { self = .cards; return }
        if text.hasPrefix("records:") {
            self = .records(types: text.dropFirst("records:".count).split(separator: ",").map(String.init))
            return
        }
        if text.hasPrefix("record:"), let uuid = UUID(uuidString: String(text.dropFirst("record:".count))) {
            self = .record(uuid)
            return
        }
        if text.hasPrefix("card:"), let uuid = UUID(uuidString: String(text.dropFirst("card:".count))) {
            self = .card(uuid)
            return
        }
        return nil
    }
}

extension ShareOptions {
    /// Refuses what no server hosts, before anything is read or sent.
    func validate(now: Date) throws(ShareError) {
        if contents.isEmpty { throw .invalidOptions("choose what to share: --summary, --records, --record, --cards or --card") }
        if direct && passcode != nil { throw .invalidOptions("a direct link (--direct) cannot have a passcode") }
        if direct && longTerm { throw .invalidOptions("a direct link (--direct) cannot be long-term") }
        if let passcode, passcode.isEmpty { throw .invalidOptions("the passcode is empty") }
        if let attempts {
            if passcode == nil { throw .invalidOptions("--attempts limits wrong passcodes: give --passcode too") }
            if attempts < 1 { throw .invalidOptions("--attempts must be at least 1") }
        }
        if let label, label.count > Self.maximumLabelLength {
            throw .invalidOptions("the label has \(label.count) characters; at most \(Self.maximumLabelLength)")
        }
        if let expires = expiry.date(from: now), expires <= now {
            throw .invalidOptions("the expiry is in the past")
        }
    }
}

extension ShareLinks {
    func createLink(_ options: ShareOptions) async throws(ShareError) -> CreatedShareLink {
        let now = Date()
        try options.validate(now: now)
        let label = options.label.flatMap { $0.isEmpty ? nil : $0 }
        let files = try await ShareFileBuilder(store: store).files(for: options.contents, now: now)
        if options.direct && files.count != 1 {
            throw .invalidOptions("a direct link (--direct) carries exactly one file; this choice makes \(files.count)")
        }
        let key = SHLink.newKey()
        let encrypted = try Self.encrypt(files, key: key)
        let expires = options.expiry.date(from: now).map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        let record: SharedLinkRecord
        do {
            record = try await wallet.createLink(SharedLinkRequest(files: encrypted, passcode: options.passcode, attempts: options.attempts,
                                                                   expires: expires, label: label, longTerm: options.longTerm,
                                                                   direct: options.direct))
        } catch {
            throw ShareError(clientError: error)
        }
        var flags: SHLinkFlags = []
        if options.longTerm { flags.insert(.longTerm) }
        if options.passcode != nil { flags.insert(.passcode) }
        if options.direct { flags.insert(.direct) }
        let payload: SHLinkPayload
        do {
            payload = try SHLinkPayload(url: record.manifestURL, key: key, expiration: expires.map { Int64($0.timeIntervalSince1970) },
                                        flags: flags, label: label)
        } catch {
            try? await wallet.revokeLink(id: record.id)
            throw .server("the server's address for the link cannot be put in a link: \(error)")
        }
        let sealed = SealedShareLink(key: Base64URL.encode(key), contents: options.contents.map(\.storageText), longTerm: options.longTerm,
                                     direct: options.direct, manifestURL: record.manifestURL)
        do {
            try await store.saveSharedLink(HKSharedLink(id: record.id, state: try sealed.encoded()))
        } catch {
            // A link whose key the store cannot keep could never be updated: take it back.
            try? await wallet.revokeLink(id: record.id)
            throw .store("cannot keep the link's key: \(error)")
        }
        return CreatedShareLink(link: SHLink.link(payload), viewerLink: SHLink.viewerLink(payload, viewer: Self.viewerURL(record)),
                                record: record)
    }

    func updateLink(id: String) async throws(ShareError) -> SharedLinkRecord {
        let kept: HKSharedLink?
        do {
            kept = try await store.sharedLink(id: id)
        } catch {
            throw .store("cannot read the link's key: \(error)")
        }
        guard let kept else { throw .unknownLink(id) }
        let sealed = try SealedShareLink.decode(kept.state)
        guard sealed.longTerm else { throw .notLongTerm(id) }
        guard let key = sealed.keyBytes else { throw .store("the link's key in the store is damaged") }
        var contents: [ShareContent] = []
        for text in sealed.contents {
            guard let content = ShareContent(storageText: text) else { throw .store("the link's contents in the store are damaged") }
            contents.append(content)
        }
        let files = try await ShareFileBuilder(store: store).files(for: contents, now: Date())
        let encrypted = try Self.encrypt(files, key: key)
        do {
            return try await wallet.updateLink(id: id, files: encrypted)
        } catch {
            throw ShareError(clientError: error)
        }
    }

    func revokeLink(id: String) async throws(ShareError) {
        do {
            try await wallet.revokeLink(id: id)
        } catch {
            throw ShareError(clientError: error)
        }
        // The link no longer opens: its key has nothing left to protect or update.
        _ = try? await store.removeSharedLink(id: id)
    }

    /// Whether the store keeps the key of link `id` (it was created from this store).
    ///
    /// - Parameter id: The link's id.
    public func keepsKey(of id: String) async throws(ShareError) -> Bool {
        do {
            return try await store.sharedLink(id: id) != nil
        } catch {
            throw .store("cannot read the link's key: \(error)")
        }
    }

    /// Encrypts each file with `key`; FHIR JSON is deflated first (`zip: DEF`).
    static func encrypt(_ files: [ShareFile], key: [UInt8]) throws(ShareError) -> [SharedLinkFile] {
        var encrypted: [SharedLinkFile] = []
        for file in files {
            do {
                let jwe = try SHLFile.encrypt(file.content, contentType: file.contentType, key: key,
                                              compress: file.contentType == SHLContentType.fhirJSON)
                encrypted.append(SharedLinkFile(contentType: file.contentType, jwe: jwe))
            } catch {
                throw .encryption(error.description)
            }
        }
        return encrypted
    }

    /// `{public-url}/viewer`: the manifest URL without its `/shl/{id}`.
    static func viewerURL(_ record: SharedLinkRecord) -> String {
        var base = record.manifestURL
        let suffix = "/shl/" + record.id
        if base.hasSuffix(suffix) {
            base.removeLast(suffix.count)
        } else if let components = URLComponents(string: base), let scheme = components.scheme, let host = components.host {
            base = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
        }
        return base + "/viewer"
    }
}
