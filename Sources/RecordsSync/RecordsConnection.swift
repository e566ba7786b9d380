import Foundation
import OpenHealthKit

/// What the store keeps about one SMART on FHIR connection (sealed, as the `state` of an
/// `HKHealthRecordsConnection`): where the server is, who the patient is, the tokens, and how
/// far each resource type has been synced.
public struct RecordsConnection: Sendable, Hashable, Codable {
    /// The connection's name in the store.
    public var name: String
    /// The FHIR base URL (no trailing slash).
    public var fhirBase: String
    /// The discovered endpoints.
    public var endpoints: SMARTEndpoints
    /// The client id (registered, or given).
    public var clientID: String
    /// The redirect URI the code was bound to (kept for the record; refresh does not need it).
    public var redirectURI: String
    /// The patient in context.
    public var patient: String
    /// The current tokens.
    public var tokens: TokenGrant
    /// Per FHIR resource type: the server's `meta.lastUpdated` high-water mark of the last
    /// complete pass (the next search asks `_lastUpdated=gt` it).
    public var marks: [String: String]
    /// Per resource type whose pass was interrupted: the high-water mark of what was already
    /// stored in that pass (a resumed pass starts that type's search again from its mark and
    /// keeps the larger of the two).
    public var pending: [String: String]
    /// Per resource type whose pass was interrupted: the `next` link of the last page stored
    /// (saved in the same transaction as that page's records). A resumed pass asks that link
    /// first instead of searching the type again; when the server no longer answers it, the
    /// type is searched again from its mark.
    public var cursors: [String: String]
    /// The SHA-256 digests (hex) of the FHIR Bundles of the health cards the last sync got from
    /// the server: a card whose content is unchanged is not stored again (the server signs a
    /// new copy, with a new date, each time it is asked).
    public var cardDigests: [String]
    /// Per card digest (of ``cardDigests``): the UUID of the verifiable record a sync stored
    /// for it. The cards a later sync no longer gets from the server are deleted by these ids,
    /// so only the cards this connection brought are ever removed (a card stored before the
    /// ids were kept has none and stays).
    public var cardRecords: [String: UUID]
    /// The PEM certificate authorities trusted for this server besides the system's
    /// (`health records connect --ca-cert`); nil when the system's trust is enough.
    public var caCertificatesPEM: String?
    /// When the connection was made and last completed a sync (this machine's clock).
    public var connectedAt: Date
    /// When the last sync completed.
    public var lastSyncAt: Date?

    /// Creates a connection.
    public init(name: String, fhirBase: String, endpoints: SMARTEndpoints, clientID: String, redirectURI: String, patient: String,
                tokens: TokenGrant, marks: [String: String] = [:], pending: [String: String] = [:], cursors: [String: String] = [:],
                cardDigests: [String] = [], cardRecords: [String: UUID] = [:], caCertificatesPEM: String? = nil, connectedAt: Date, lastSyncAt: Date? = nil) {
        self.name = name
        self.fhirBase = fhirBase
        self.endpoints = endpoints
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.patient = patient
        self.tokens = tokens
        self.marks = marks
        self.pending = pending
        self.cursors = cursors
        self.cardDigests = cardDigests
        self.cardRecords = cardRecords
        self.caCertificatesPEM = caCertificatesPEM
        self.connectedAt = connectedAt
        self.lastSyncAt = lastSyncAt
    }

    /// The store's sealed form.
    public func stored() throws -> HKHealthRecordsConnection {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return HKHealthRecordsConnection(name: name, state: try encoder.encode(self))
    }

    private enum CodingKeys: String, CodingKey {
        case name, fhirBase, endpoints, clientID, redirectURI, patient, tokens, marks, pending, cursors, cardDigests, caCertificatesPEM, connectedAt
        case lastSyncAt, cardRecords
    }

    /// Decodes a connection; `cursors`, `cardDigests`, `cardRecords` and `caCertificatesPEM` may be missing
    /// (connections saved before they existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        fhirBase = try container.decode(String.self, forKey: .fhirBase)
        endpoints = try container.decode(SMARTEndpoints.self, forKey: .endpoints)
        clientID = try container.decode(String.self, forKey: .clientID)
        redirectURI = try container.decode(String.self, forKey: .redirectURI)
        patient = try container.decode(String.self, forKey: .patient)
        tokens = try container.decode(TokenGrant.self, forKey: .tokens)
        marks = try container.decode([String: String].self, forKey: .marks)
        pending = try container.decode([String: String].self, forKey: .pending)
        cursors = try container.decodeIfPresent([String: String].self, forKey: .cursors) ?? [:]
        cardDigests = try container.decodeIfPresent([String].self, forKey: .cardDigests) ?? []
        cardRecords = try container.decodeIfPresent([String: UUID].self, forKey: .cardRecords) ?? [:]
        caCertificatesPEM = try container.decodeIfPresent(String.self, forKey: .caCertificatesPEM)
        connectedAt = try container.decode(Date.self, forKey: .connectedAt)
        lastSyncAt = try container.decodeIfPresent(Date.self, forKey: .lastSyncAt)
    }

    /// Reads a stored connection.
    public init(stored: HKHealthRecordsConnection) throws(RecordsSyncError) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            self = try decoder.decode(RecordsConnection.self, from: stored.state)
        } catch {
            throw .connection("the stored connection '\(stored.name)' cannot be read")
        }
    }

    /// The FHIR base URL without trailing slashes.
    static func normalized(base: String) -> String {
        var text = base
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
