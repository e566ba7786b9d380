import ExactJSON
import FhirBlocks

extension GrantedScope {
    /// The granted scope as compact JSON for a database column:
    /// `{"dropped":[…],"grants":[<storageText>…],"scopes":[<scope>…]}`.
    public var storageJSON: String {
        var object = JSONObject()
        object.append("dropped", strings: dropped)
        object.append("grants", strings: grants.map(\.storageText))
        object.append("scopes", strings: scopes.map(\.description))
        return String(decoding: JSONWriter.serialize(.object(object)), as: UTF8.self)
    }

    /// Reads ``storageJSON`` back.
    public init(storageJSON text: String) throws(TrustStoreError) {
        guard let value = try? JSONParser.parse(Array(text.utf8), maximumDepth: 4), let object = value.objectValue else {
            throw .corrupt("granted scope")
        }
        func strings(_ name: String) throws(TrustStoreError) -> [String] {
            guard let array = object[name]?.arrayValue else { throw .corrupt("granted scope \(name)") }
            var result: [String] = []
            for element in array {
                guard let string = element.stringValue else { throw .corrupt("granted scope \(name)") }
                result.append(string)
            }
            return result
        }
        var grants: [PermissionScope] = []
        for text in try strings("grants") { grants.append(try PermissionScope(storageText: text)) }
        var scopes: [SmartScope] = []
        for text in try strings("scopes") {
            guard let scope = SmartScope(text) else { throw .corrupt("granted scope scopes") }
            scopes.append(scope)
        }
        self.init(grants: grants, scopes: scopes, dropped: try strings("dropped"))
    }
}
