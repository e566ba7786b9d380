/// Expands a value set into its codes when the package itself lists them all (codes named in the
/// compose, or complete FHIR code systems without filters). Anything else (filters, external code
/// systems such as BCP-47 or UCUM) is not enumerable and stays a plain code string.
struct ValueSetExpander {
    struct Code {
        let code: String
        let display: String?
    }

    let package: DefinitionPackage

    func codes(valueSet url: String, depth: Int = 0) -> [Code]? {
        guard depth < 8, let valueSet = package.valueSets[url] else { return nil }
        var result: [Code] = []
        var seen: Set<String> = []
        // DSTU2: the value set's own inline code system, then `compose.import`ed value sets.
        if let inline = valueSet["codeSystem"] as? [String: Any] {
            for code in Self.flatten(inline["concept"] as? [[String: Any]] ?? []) where seen.insert(code.code).inserted {
                result.append(code)
            }
        }
        guard let compose = valueSet["compose"] as? [String: Any] else { return result.isEmpty ? nil : result }
        if compose["exclude"] != nil { return nil }
        for imported in compose["import"] as? [String] ?? [] {
            guard let codes = codes(valueSet: String(imported.split(separator: "|").first ?? ""), depth: depth + 1)
            else { return nil }
            for code in codes where seen.insert(code.code).inserted { result.append(code) }
        }
        for include in compose["include"] as? [[String: Any]] ?? [] {
            if include["filter"] != nil { return nil }
            var found: [Code] = []
            if let listed = include["concept"] as? [[String: Any]] {
                found = listed.compactMap { concept in
                    (concept["code"] as? String).map { Code(code: $0, display: concept["display"] as? String) }
                }
            } else if let system = include["system"] as? String {
                guard let codeSystem = package.codeSystems[system], (codeSystem["content"] as? String) == "complete"
                else { return nil }
                found = Self.flatten(codeSystem["concept"] as? [[String: Any]] ?? [])
            }
            for nested in include["valueSet"] as? [String] ?? [] {
                guard let codes = codes(valueSet: String(nested.split(separator: "|").first ?? ""), depth: depth + 1)
                else { return nil }
                found += codes
            }
            for code in found where seen.insert(code.code).inserted { result.append(code) }
        }
        return result.isEmpty ? nil : result
    }

    private static func flatten(_ concepts: [[String: Any]]) -> [Code] {
        concepts.flatMap { concept -> [Code] in
            let own = (concept["code"] as? String).map { [Code(code: $0, display: concept["display"] as? String)] } ?? []
            return own + flatten(concept["concept"] as? [[String: Any]] ?? [])
        }
    }
}
