import Crypto
import Foundation

/// Seals and opens the secret part of every stored record, and computes the keyed hashes that
/// let SQL find rows by sync identifier or metadata without storing either in the clear.
///
/// Subkeys are derived from the master key with HKDF-SHA256: one for AES-256-GCM sealing
/// of records, one for HMAC-SHA256 index hashes, one for AES-256-GCM sealing of value blocks
/// (``ValueBlock``), one for statistics rollups (``RollupPage``) and one for health-records
/// connections (``HKHealthRecordsConnection``, bound to the keyed hash of their name); another seals the keys of
/// the links the owner shared (``HKSharedLink``, bound to the keyed hash of the link's id). Each sealed record is bound
/// to its row's UUID as additional authenticated data, so moving a sealed blob to another row
/// fails to open; a value block is bound to its purpose, type and entry count, a rollup page to
/// its type and day, and under their own keys neither can pass for a record.
struct RecordCipher: Sendable {
    private let sealingKey: SymmetricKey
    private let indexKey: SymmetricKey
    private let blockKey: SymmetricKey
    private let rollupKey: SymmetricKey
    private let routeKey: SymmetricKey
    private let connectionKey: SymmetricKey
    private let sharedLinkKey: SymmetricKey
    /// HMAC-SHA256 keyed with the index subkey, as its two SHA-256 states after their key blocks (the key XOR ipad and XOR
    /// opad): each index hash starts from copies (a digest state is copied on write), so that neither key block is hashed
    /// again (`HMAC<SHA256>` hashes the outer one at each `finalize()`).
    private let indexInner: SHA256
    private let indexOuter: SHA256

    init(masterKey: SymmetricKey) {
        sealingKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("openhealthkit.records.v1".utf8), outputByteCount: 32)
        indexKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("openhealthkit.index.v1".utf8), outputByteCount: 32)
        blockKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("openhealthkit.value-blocks.v1".utf8), outputByteCount: 32)
        rollupKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("openhealthkit.rollups.v1".utf8), outputByteCount: 32)
        routeKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("openhealthkit.route-blocks.v1".utf8), outputByteCount: 32)
        connectionKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("openhealthkit.record-connections.v1".utf8), outputByteCount: 32)
        sharedLinkKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("openhealthkit.shared-links.v1".utf8), outputByteCount: 32)
        (indexInner, indexOuter) = Self.hmacStates(indexKey)
    }

    /// Seals `plaintext`, binding it to `context` (the row's UUID bytes).
    func seal(_ plaintext: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.seal(plaintext, key: sealingKey, context: context)
    }

    /// Opens a sealed blob; a wrong key or an altered blob is `tamperedRecord`.
    func open(_ sealed: some DataProtocol, context: some DataProtocol) throws -> Data {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: sealingKey, authenticating: context)
        } catch {
            throw HealthStoreError(.tamperedRecord, "a sealed record failed authentication")
        }
    }

    /// Seals a value block's plaintext under the block subkey, binding it to `context`
    /// (``ValueBlock/context(type:)``; format 1: ``ValueBlock/format1Context(type:count:)``).
    func sealBlock(_ plaintext: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.seal(plaintext, key: blockKey, context: context)
    }

    /// Opens a sealed value block; a wrong key, an altered block or a block of another type
    /// or size is `tamperedRecord`.
    func openBlock(_ sealed: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.open(sealed, key: blockKey, context: context, what: "value block")
    }

    /// Seals a block of a workout route's locations under the route subkey, binding it to
    /// `context` (``RouteBlock/context(route:position:count:)``).
    func sealRoute(_ plaintext: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.seal(plaintext, key: routeKey, context: context)
    }

    /// Opens a sealed route block; a wrong key, an altered block or a block moved to another
    /// route or position is `tamperedRecord`.
    func openRoute(_ sealed: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.open(sealed, key: routeKey, context: context, what: "route block")
    }

    /// Seals a rollup page under the rollup subkey, binding it to `context`
    /// (``RollupPage/context(type:page:)``).
    func sealRollup(_ plaintext: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.seal(plaintext, key: rollupKey, context: context)
    }

    /// Opens a sealed rollup page; a wrong key, an altered page or a page moved to another
    /// type or day is `tamperedRecord`.
    func openRollup(_ sealed: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.open(sealed, key: rollupKey, context: context, what: "rollup")
    }

    /// Seals a health-records connection under the connection subkey, binding it to `context`
    /// (the keyed hash of its name).
    func sealConnection(_ plaintext: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.seal(plaintext, key: connectionKey, context: context)
    }

    /// Opens a sealed connection; a wrong key, an altered row or a row moved to another name is
    /// `tamperedRecord`.
    func openConnection(_ sealed: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.open(sealed, key: connectionKey, context: context, what: "health-records connection")
    }

    /// Seals a shared link's secrets (``HKSharedLink``) under the shared-link subkey, binding
    /// them to `context` (the keyed hash of the link's id).
    func sealSharedLink(_ plaintext: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.seal(plaintext, key: sharedLinkKey, context: context)
    }

    /// Opens a sealed shared link; a wrong key, an altered row or a row moved to another id is
    /// `tamperedRecord`.
    func openSharedLink(_ sealed: some DataProtocol, context: some DataProtocol) throws -> Data {
        try Self.open(sealed, key: sharedLinkKey, context: context, what: "shared link")
    }

    private static func seal(_ plaintext: some DataProtocol, key: SymmetricKey, context: some DataProtocol) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce(), authenticating: context)
        guard let combined = box.combined else {
            throw HealthStoreError(.io, "AES-GCM produced no combined representation")
        }
        return combined
    }

    /// A fresh random 12-byte nonce, read from the kernel in one call (`AES.GCM.Nonce()` makes two); never from
    /// ``RandomBytes``' pool, whose bytes a cloned process or virtual machine could hand out twice.
    private static func nonce() throws -> AES.GCM.Nonce {
        try withUnsafeTemporaryAllocation(byteCount: 12, alignment: 1) { bytes in
            RandomBytes.fillFromKernel(bytes)
            return try AES.GCM.Nonce(data: UnsafeRawBufferPointer(bytes))
        }
    }

    private static func open(_ sealed: some DataProtocol, key: SymmetricKey, context: some DataProtocol, what: String) throws -> Data {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: key, authenticating: context)
        } catch {
            throw HealthStoreError(.tamperedRecord, "a sealed \(what) failed authentication")
        }
    }

    /// A 16-byte keyed hash of `parts`, for indexed equality lookups. Each part is prefixed
    /// with its length, so no two different lists of parts hash alike.
    func indexHash(_ parts: String...) -> Data {
        // Each part's length (4 bytes, little-endian) and UTF-8 bytes, hashed in one update.
        var input: [UInt8] = []
        input.reserveCapacity(parts.reduce(0) { $0 + 4 + $1.utf8.count })
        for part in parts {
            withUnsafeBytes(of: UInt32(part.utf8.count).littleEndian) { input.append(contentsOf: $0) }
            input.append(contentsOf: part.utf8)
        }
        // HMAC (RFC 2104): SHA-256(key ^ opad, SHA-256(key ^ ipad, input)), from the states after the key blocks.
        var inner = indexInner
        input.withUnsafeBytes { inner.update(bufferPointer: $0) }
        var outer = indexOuter
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize().withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0.prefix(16))) }
    }

    /// The SHA-256 states of HMAC-SHA256 keyed with `key` after its inner and outer key blocks.
    static func hmacStates(_ key: SymmetricKey) -> (inner: SHA256, outer: SHA256) {
        // A key longer than the block is replaced by its digest; a shorter one is padded with zeros.
        var block = key.withUnsafeBytes { bytes in bytes.count > 64 ? Array(SHA256.hash(data: bytes)) : Array(bytes) }
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256()
        var outer = SHA256()
        inner.update(data: block.map { $0 ^ 0x36 })
        outer.update(data: block.map { $0 ^ 0x5C })
        return (inner, outer)
    }

    /// The sealed constant stored with the database to recognise the right key.
    static let keyCheckPlaintext = Data("OpenHealthKit key check v1".utf8)
    static let keyCheckContext = Data("store".utf8)
}

/// The additional authenticated data a sample's sealed record is bound to: its UUID, kind,
/// start, end and type, which are stored in the clear. Editing any of them outside the store
/// makes the record fail to open instead of changing what it means.
struct RecordContext {
    let bytes: [UInt8]

    init(uuid: Data, type: String, kind: SampleKind, start: Double, end: Double) {
        var writer = ByteWriter(capacity: uuid.count + 17 + type.utf8.count)
        writer.append(uuid)
        Self.write(type: type, kind: kind, start: start, end: end, to: &writer)
        bytes = writer.bytes
    }

    /// The same bytes from the sample's UUID (the save path, before any blob exists).
    init(uuid: UUID, type: String, kind: SampleKind, start: Double, end: Double) {
        var writer = ByteWriter(capacity: 33 + type.utf8.count)
        writer.uuid(uuid)
        Self.write(type: type, kind: kind, start: start, end: end, to: &writer)
        bytes = writer.bytes
    }

    private static func write(type: String, kind: SampleKind, start: Double, end: Double, to writer: inout ByteWriter) {
        writer.byte(UInt8(truncatingIfNeeded: kind.rawValue))
        writer.double(start)
        writer.double(end)
        writer.append(utf8: type)
    }
}
