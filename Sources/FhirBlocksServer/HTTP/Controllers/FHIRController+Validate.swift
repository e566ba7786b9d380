import ExactJSON
import FhirBlocks
import ModelsR4

/// `POST /fhir/{type}/$validate` (`%24validate` too): validates the body, a resource of the
/// type or a `Parameters` with a `resource` parameter holding one, with ModelsR4's
/// `FHIRValidator` (the validator every write passes), and answers an OperationOutcome: one
/// issue per problem (error or warning, with its path as `expression`), or one
/// `informational` issue when there is none. Nothing is stored; the request is audited.
extension FHIRController {
    /// Whether a path segment is `$validate` (or `%24validate`, in any case).
    static func isValidateOperation(_ segment: String) -> Bool {
        segment == "$validate" || segment.lowercased() == "%24validate"
    }

    /// Validates the body against the R4 definitions.
    func validateResource(type: String, body: [UInt8], access: BearerAccess) async -> ServiceResponse {
        guard ResourceScope(type) != nil else { return Self.outcome(status: 404, code: "not-found", "unknown resource type") }
        guard case .object(let object)? = try? JSONParser.parse(body, maximumDepth: 96) else {
            return Self.outcome(status: 400, code: "structure", "the body is not a JSON object")
        }
        var resource = object
        if object["resourceType"]?.stringValue == "Parameters", type != "Parameters" {
            let parameter = object["parameter"]?.arrayValue?.first { $0.objectValue?["name"]?.stringValue == "resource" }
            guard let inner = parameter?.objectValue?["resource"]?.objectValue else {
                return Self.outcome(status: 400, code: "invalid", "the Parameters have no resource parameter holding a resource")
            }
            resource = inner
        }
        guard resource["resourceType"]?.stringValue == type else {
            return Self.outcome(status: 400, code: "invalid", "resourceType must be \(type)")
        }
        let issues = FHIRValidator().validate(.object(resource)).prefix(100)
        do {
            try await auditAccess(access, resources: [type], outcome: .success, action: "E")
        } catch {
            return Self.outcome(status: 500, code: "exception", "the access could not be audited")
        }
        var entries: [JSONValue] = issues.map { issue in
            var entry = JSONObject()
            entry.append("severity", issue.severity == .error ? "error" : "warning")
            entry.append("code", issue.severity == .error ? "invalid" : "informational")
            entry.append("diagnostics", .string(issue.description))
            entry.append("expression", .array([.string(issue.path)]))
            return .object(entry)
        }
        if entries.isEmpty {
            var entry = JSONObject()
            entry.append("severity", "information")
            entry.append("code", "informational")
            entry.append("diagnostics", "the resource is valid")
            entries = [.object(entry)]
        }
        var outcome = JSONObject()
        outcome.append("resourceType", "OperationOutcome")
        outcome.append("issue", .array(entries))
        return .json(.object(outcome), contentType: Self.fhirJSON)
    }
}
