import ExactJSON
import Foundation

/// The `.smart-health-card` file (rule 38): `{"verifiableCredential":["<JWS>", …]}`, served as
/// `application/smart-health-card`; and the deep-link form (rule 39).
public enum SHCFile {
    /// The required file extension, without the dot.
    public static let fileExtension = "smart-health-card"
    /// The required media type.
    public static let contentType = "application/smart-health-card"

    /// The file's JSON, `{"verifiableCredential":[…]}`, pretty-printed like the spec examples.
    public static func encode(_ jws: [String]) -> [UInt8] {
        JSONWriter.serialize(json(jws), style: .pretty)
    }

    static func json(_ jws: [String]) -> JSONValue {
        .object(members: [.init("verifiableCredential", .array(jws.map { .string($0) }))])
    }

    /// Writes a health card file. The URL's extension must be `.smart-health-card` (rule 38).
    public static func write(_ jws: [String], to url: URL) throws(SHCFileError) {
        guard url.pathExtension == fileExtension else { throw .wrongExtension(url.pathExtension) }
        do {
            try Data(encode(jws)).write(to: url, options: .atomic)
        } catch {
            throw .writeFailed(path: url.path)
        }
    }

    /// The JWS strings of a health card file (see ``SHCInput`` for every input form).
    public static func decode(_ bytes: [UInt8], limits: SHCLimits = .default) throws(SHCInputError) -> [String] {
        let cards = try SHCInput.parse(bytes, limits: limits)
        return cards.map(\.jws)
    }

    /// The recommended deep link (rule 39): `<base>#{"verifiableCredential":[…]}` with the JSON
    /// percent-encoded. The base must be `https://` and should end with `/SMARTHealthCard/`.
    public static func deepLink(base: String, jws: [String]) throws(SHCFileError) -> String {
        guard base.lowercased().hasPrefix("https://"), !base.contains("#") else { throw .insecureDeepLinkBase }
        var allowed = CharacterSet.urlFragmentAllowed
        allowed.remove(charactersIn: "\"{}[],:%")
        let fragment = JSONWriter.string(json(jws)).addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return base + "#" + fragment
    }
}
