import CommonSupport
import ExactJSON
import FhirBlocks

/// Who this client is to a FhirBlocks server: a registered csiGuid, the P-256 key bound to it,
/// the device identifier it registered with and its application class.
///
/// Saved as a JSON file that only its owner may read (mode 0600):
/// `{"format":"fhirblocks-csi-identity","version":1,"csiGuid":…,"applicationClass":…,"deviceId":…,"privateKey":"<PKCS #8 PEM>"}`.
/// ``load(from:)`` refuses a file that the group or others may read or write, or that belongs
/// to another user.
public struct CsiIdentity: Sendable {
    /// The `format` member of an identity file.
    public static let fileFormat = "fhirblocks-csi-identity"
    /// The application class of a wallet (CSA).
    public static let walletApplicationClass = "org.fhirblocks.csa"
    /// The application class of an app (DApp).
    public static let appApplicationClass = "org.fhirblocks.dapp"
    /// The largest identity file read.
    static let maximumFileSize = 64 * 1024

    /// The registered csiGuid.
    public var csiGuid: CsiGuid
    /// The key bound to ``csiGuid``.
    public var key: CsiSigningKey
    /// The device identifier sent at registration (the assertions' `sta`).
    public var deviceId: String
    /// `org.fhirblocks.csa` for a wallet, `org.fhirblocks.dapp` for an app.
    public var applicationClass: String

    /// Creates an identity.
    public init(csiGuid: CsiGuid, key: CsiSigningKey, deviceId: String, applicationClass: String) {
        self.csiGuid = csiGuid
        self.key = key
        self.deviceId = deviceId
        self.applicationClass = applicationClass
    }

    /// Whether the application class names a wallet (last dotted part `csa`, `wallet` or
    /// `healthwallet`, as the server decides).
    public var isWallet: Bool {
        let last = applicationClass.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return ["csa", "wallet", "healthwallet"].contains(last)
    }

    /// A new device identifier in the legacy shape (an uppercase UUID).
    public static func newDeviceId() -> String {
        var generator = SystemRandomNumberGenerator()
        return CsiGuid.random(using: &generator).rawValue.uppercased()
    }

    // MARK: File

    /// The file's JSON (holds the private key).
    var fileJSON: JSONValue {
        var object = JSONObject()
        object.members = [
            JSONMember(key: "format", value: .string(Self.fileFormat)),
            JSONMember(key: "version", value: .number("1")),
            JSONMember(key: "csiGuid", value: .string(csiGuid.rawValue)),
            JSONMember(key: "applicationClass", value: .string(applicationClass)),
            JSONMember(key: "deviceId", value: .string(deviceId)),
            JSONMember(key: "privateKey", value: .string(key.pem)),
        ]
        return .object(object)
    }

    /// Writes the identity to `path` with mode 0600 (through a temporary file in the same
    /// folder). Without `overwrite`, an existing file is refused.
    public func save(to path: String, overwrite: Bool = false) throws(CsiIdentityError) {
        var bytes = JSONWriter.serialize(fileJSON, style: .pretty)
        bytes.append(UInt8(ascii: "\n"))
        do {
            try SecretFile.save(bytes, to: path, replacing: overwrite)
        } catch {
            throw CsiIdentityError(error)
        }
    }

    /// Reads an identity file written by ``save(to:overwrite:)``, after checking that it is a
    /// regular file of the current user with mode 0600 or narrower.
    public static func load(from path: String) throws(CsiIdentityError) -> CsiIdentity {
        let bytes: [UInt8]
        do {
            bytes = try SecretFile.load(path, maximumSize: maximumFileSize)
        } catch {
            throw CsiIdentityError(error)
        }
        return try CsiIdentity(fileBytes: bytes, path: path)
    }

    /// Reads the JSON of an identity file (no permission checks; `path` only names it in errors).
    public init(fileBytes bytes: [UInt8], path: String) throws(CsiIdentityError) {
        guard let value = try? JSONParser.parse(bytes, maximumDepth: 4), let object = value.objectValue else {
            throw .malformed(path: path, reason: "not a JSON object")
        }
        func string(_ name: String) throws(CsiIdentityError) -> String {
            guard let text = object[name]?.stringValue, !text.isEmpty else {
                throw .malformed(path: path, reason: "\"\(name)\" is missing or not a string")
            }
            return text
        }
        guard object["format"]?.stringValue == Self.fileFormat else { throw .malformed(path: path, reason: "\"format\" is not \(Self.fileFormat)") }
        guard object["version"] == .number("1") else { throw .malformed(path: path, reason: "unsupported \"version\"") }
        guard let guid = CsiGuid(try string("csiGuid")) else { throw .malformed(path: path, reason: "\"csiGuid\" is not a UUID") }
        let key: CsiSigningKey
        do {
            key = try CsiSigningKey(pem: try string("privateKey"))
        } catch {
            throw .malformed(path: path, reason: "\"privateKey\" is not a P-256 PEM private key")
        }
        let deviceId = try string("deviceId")
        guard !deviceId.utf8.contains(UInt8(ascii: "|")) else { throw .malformed(path: path, reason: "\"deviceId\" contains '|'") }
        self.init(csiGuid: guid, key: key, deviceId: deviceId, applicationClass: try string("applicationClass"))
    }
}
