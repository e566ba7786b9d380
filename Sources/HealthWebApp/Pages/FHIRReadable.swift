import Foundation
import HealthPresentation

/// What a clinical record's page shows of its FHIR resource, in words: a lab result's value,
/// unit, reference range and interpretation; a medication's dosage; statuses, performers and
/// dates. Only reads the JSON; an element it does not know is left to the JSON view.
enum FHIRReadable {
    /// Label and text pairs, in reading order.
    static func fields(_ resource: [String: Any]) -> [(label: String, text: String)] {
        var fields: [(String, String)] = []
        func add(_ label: String, _ text: String?) {
            if let text, !text.isEmpty { fields.append((label, text)) }
        }
        add("Status", resource["status"] as? String)
        add("Clinical status", concept(resource["clinicalStatus"]))
        add("Verification", concept(resource["verificationStatus"]))
        add("Category", (resource["category"] as? [Any])?.compactMap(concept).joined(separator: ", ") ?? concept(resource["category"]))
        add("Criticality", resource["criticality"] as? String)
        add("Value", value(resource))
        if let ranges = resource["referenceRange"] as? [[String: Any]] {
            add("Reference range", ranges.compactMap(range).joined(separator: "; "))
        }
        add("Interpretation", (resource["interpretation"] as? [Any])?.compactMap(concept).joined(separator: ", ") ?? concept(resource["interpretation"]))
        if let components = resource["component"] as? [[String: Any]] {
            for component in components { add(concept(component["code"]) ?? "Component", value(component)) }
        }
        for key in ["dosage", "dosageInstruction"] {
            add("Dosage", (resource[key] as? [[String: Any]])?.compactMap(dosage).joined(separator: "; "))
        }
        add("Medication", concept(resource["medicationCodeableConcept"]) ?? reference(resource["medicationReference"]))
        add("Reaction", (resource["reaction"] as? [[String: Any]])?.flatMap { ($0["manifestation"] as? [Any])?.compactMap(concept) ?? [] }
            .joined(separator: ", "))
        add("Lot number", resource["lotNumber"] as? String)
        add("Body site", concept(resource["bodySite"]) ?? (resource["bodySite"] as? [Any])?.compactMap(concept).joined(separator: ", "))
        let performers = (resource["performer"] as? [Any] ?? []).compactMap { entry -> String? in
            reference(entry) ?? reference((entry as? [String: Any])?["actor"])
        }
        add("Performed by", performers.joined(separator: ", "))
        add("Recorded by", reference(resource["recorder"]) ?? reference(resource["asserter"]) ?? reference(resource["requester"]))
        add("Issued", resource["issued"] as? String)
        if let notes = resource["note"] as? [[String: Any]] { add("Note", notes.compactMap { $0["text"] as? String }.joined(separator: " ")) }
        return fields
    }

    /// A CodeableConcept's text, else its first coding's display, else its code.
    static func concept(_ value: Any?) -> String? {
        guard let object = value as? [String: Any] else { return value as? String }
        if let text = object["text"] as? String { return text }
        guard let coding = (object["coding"] as? [[String: Any]])?.first else { return nil }
        return coding["display"] as? String ?? coding["code"] as? String
    }

    static func reference(_ value: Any?) -> String? {
        guard let object = value as? [String: Any] else { return nil }
        return object["display"] as? String ?? object["reference"] as? String
    }

    static func quantity(_ value: Any?) -> String? {
        guard let object = value as? [String: Any], let number = object["value"] as? NSNumber else { return nil }
        let comparator = object["comparator"] as? String ?? ""
        let unit = object["unit"] as? String ?? object["code"] as? String ?? ""
        // To the precision the source wrote it, without a double's noise (15.61, not 15.605116822620527).
        return "\(comparator)\(HealthFormatter.writtenNumber(number.doubleValue))\(unit.isEmpty ? "" : " " + unit)"
    }

    static func value(_ resource: [String: Any]) -> String? {
        if let text = quantity(resource["valueQuantity"]) { return text }
        if let text = concept(resource["valueCodeableConcept"]) { return text }
        for key in ["valueString", "valueDateTime", "valueTime"] { if let text = resource[key] as? String { return text } }
        if let flag = resource["valueBoolean"] as? Bool { return flag ? "yes" : "no" }
        if let number = resource["valueInteger"] as? NSNumber { return number.stringValue }
        return nil
    }

    static func range(_ range: [String: Any]) -> String? {
        if let text = range["text"] as? String { return text }
        switch (quantity(range["low"]), quantity(range["high"])) {
        case let (low?, high?): return "\(low) to \(high)"
        case let (low?, nil): return "at least \(low)"
        case let (nil, high?): return "at most \(high)"
        case (nil, nil): return nil
        }
    }

    static func dosage(_ dosage: [String: Any]) -> String? {
        if let text = dosage["text"] as? String { return text }
        let dose = (dosage["doseAndRate"] as? [[String: Any]])?.first.flatMap { quantity($0["doseQuantity"]) } ?? quantity(dosage["doseQuantity"])
        let timing = ((dosage["timing"] as? [String: Any])?["repeat"] as? [String: Any]).flatMap { repeatRule -> String? in
            guard let frequency = repeatRule["frequency"] as? NSNumber, let period = repeatRule["period"] as? NSNumber,
                  let unit = repeatRule["periodUnit"] as? String else { return nil }
            return "\(frequency.stringValue) per \(period.stringValue) \(unit)"
        }
        let parts = [dose, timing, concept(dosage["route"])].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
