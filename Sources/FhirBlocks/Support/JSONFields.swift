import ExactJSON

/// Typed access to the members of one JSON object of a request (FHIRCore's `JSONObjectFields`),
/// with errors that name the member and the message but never repeat a value.
struct JSONFields {
    let fields: JSONObjectFields
    /// What is being read, for example `"csi/requestCsiRegistration"` or `"permission.heartScope"`.
    let context: String

    init(_ value: JSONValue, context: String) throws(SMOACError) {
        guard let fields = JSONObjectFields(value) else {
            throw .malformedRequest("\(context): expected a JSON object, found \(value.kindName)")
        }
        self.fields = fields
        self.context = context
    }

    var object: JSONObject { fields.object }

    /// The request error for a member that could not be read.
    private func refused(_ failure: JSONObjectFields.Failure) -> SMOACError {
        switch failure {
        case .missing(let member): .malformedRequest("\(context): \"\(member)\" is missing")
        case .wrongKind(let member, let expected, let found):
            .malformedRequest("\(context): \"\(member)\" must be \(expected)" + (found.map { ", found \($0)" } ?? ""))
        }
    }

    func has(_ key: String) -> Bool { fields.has(key) }

    func string(_ key: String) throws(SMOACError) -> String {
        do { return try fields.string(key) } catch { throw refused(error) }
    }

    func optionalString(_ key: String) throws(SMOACError) -> String? {
        do { return try fields.optionalString(key) } catch { throw refused(error) }
    }

    func array(_ key: String) throws(SMOACError) -> [JSONValue] {
        do { return try fields.array(key) } catch { throw refused(error) }
    }

    func stringArray(_ key: String) throws(SMOACError) -> [String] {
        do { return try fields.stringArray(key) } catch { throw refused(error) }
    }

    func optionalStringArray(_ key: String) throws(SMOACError) -> [String]? {
        do { return try fields.optionalStringArray(key) } catch { throw refused(error) }
    }

    func fields(_ key: String) throws(SMOACError) -> JSONFields {
        guard let value = object[key] else { throw .malformedRequest("\(context): \"\(key)\" is missing") }
        return try JSONFields(value, context: "\(context).\(key)")
    }

    /// A JSON number that is an integer (`"300"`, not `"300.5"`), or nil when absent.
    func optionalInteger(_ key: String) throws(SMOACError) -> Int64? {
        do { return try fields.optionalInteger(key) } catch { throw refused(error) }
    }

    func optionalBool(_ key: String) throws(SMOACError) -> Bool? {
        do { return try fields.optionalBool(key) } catch { throw refused(error) }
    }
}
