import FHIRCore
import Foundation
import ModelsR4
import Testing

@Suite("Decoding and encoding models")
struct DecodingTests {
    static let observationJSON = #"""
        {"resourceType":"Observation","id":"glucose","status":"final","_status":{"extension":[{"url":"http://example.org/why","valueString":"checked"}]},\#
        "code":{"coding":[{"system":"http://loinc.org","code":"15074-8","display":"Glucose"}]},"subject":{"reference":"Patient/f201"},\#
        "effectivePeriod":{"start":"2013-04-02T09:30:10+01:00"},"valueQuantity":{"value":6.30,"unit":"mmol/l","system":"http://unitsofmeasure.org",\#
        "code":"mmol/L"},"component":[{"code":{"text":"a"},"valueString":"x"},{"code":{"text":"b"},"valueDateTime":"2013"}]}
        """#

    @Test("an observation decodes into typed fields and re-encodes byte for byte")
    func observationRoundTrip() throws {
        let observation = try Observation(fhirJSON: Self.observationJSON)
        #expect(observation.id?.string == "glucose")
        #expect(observation.status.value == .final)
        #expect(observation.status.extension?.first?.url.value?.string == "http://example.org/why")
        #expect(observation.code.coding?.first?.code?.string == "15074-8")
        guard case .quantity(let quantity) = observation.value else {
            Issue.record("valueQuantity not decoded as .quantity")
            return
        }
        #expect(quantity.value?.value?.text == "6.30")
        guard case .period(let period) = observation.effective else {
            Issue.record("effectivePeriod not decoded")
            return
        }
        #expect(period.start?.value?.description == "2013-04-02T09:30:10+01:00")
        #expect(observation.component?.count == 2)
        if case .dateTime(let year) = observation.component?[1].value {
            #expect(year.value?.description == "2013")
        } else {
            Issue.record("component[1].valueDateTime not decoded")
        }
        #expect(observation.fhirJSONString() == Self.observationJSON)
    }

    @Test("reading code written for Apple's FHIRModels compiles and works")
    func fhirModelsReadingCode() throws {
        let statementJSON = #"""
            {"resourceType":"MedicationStatement","status":"active","medicationCodeableConcept":{"text":"Aspirin"},"subject":{"reference":"Patient/1"}}
            """#
        let medicationStatement = try MedicationStatement(fhirJSON: statementJSON)
        #expect(medicationStatement.status.value?.rawValue == "active")
        if case .codeableConcept(let concept) = medicationStatement.medication {
            #expect(concept.text?.value?.string == "Aspirin")
        } else {
            Issue.record("medication[x] not decoded")
        }

        let proxy = try ResourceProxy(fhirJSON: Self.observationJSON)
        let observation = try #require(proxy.get(if: Observation.self))
        #expect(proxy.get(if: Patient.self) == nil)
        #expect(proxy.get().id?.value?.string == "glucose")
        switch observation.value {
        case .quantity(let q): #expect(q.unit?.value?.string == "mmol/l")
        default: Issue.record("expected a quantity")
        }
        // The flat names FHIRModels uses for backbone elements.
        let component: ObservationComponent? = observation.component?.first
        #expect(component?.code.text?.string == "a")
        #expect(ObservationStatus(rawValue: "final") == .final)
        #expect(ObservationStatus(rawValue: "nonsense") == nil)
    }

    @Test("building a resource in code and encoding it")
    func buildInCode() throws {
        var patient = Patient()
        patient.id = "p1"
        var name = HumanName()
        name.family = "Chalmers"
        name.given = ["Peter", "James"]
        patient.name = [name]
        patient.gender = FHIRPrimitive(.male)
        patient.birthDate = FHIRPrimitive(FHIRDate("1974-12-25"))
        patient.active = true
        let text = patient.fhirJSONString()
        #expect(text == #"""
            {"resourceType":"Patient","id":"p1","active":true,"name":[{"family":"Chalmers","given":["Peter","James"]}],"gender":"male",\#
            "birthDate":"1974-12-25"}
            """#)
        #expect(try Patient(fhirJSON: text) == patient)
    }

    @Test("a code outside the required value set is kept as unrecognized and written back")
    func unrecognizedCode() throws {
        let json = #"{"resourceType":"Observation","status":"draft-ish","code":{"text":"x"}}"#
        let observation = try Observation(fhirJSON: json)
        #expect(observation.status.value == .unrecognized("draft-ish"))
        #expect(observation.status.value?.isKnown == false)
        #expect(observation.fhirJSONString() == json)
    }

    @Test("repeating primitives keep their positional _ companions, nulls included")
    func primitiveArrayCompanions() throws {
        let json = #"""
            {"resourceType":"Patient","name":[{"given":["A",null,"C"],"_given":[null,{"extension":[{"url":"http://x","valueBoolean":true}]},{"id":"c"}]}]}
            """#
        let patient = try Patient(fhirJSON: json)
        let given = try #require(patient.name?.first?.given)
        #expect(given.count == 3)
        #expect(given[1].value == nil)
        #expect(given[1].extension?.count == 1)
        #expect(given[2].id == "c")
        #expect(patient.fhirJSONString() == json)
    }

    @Test("an unknown resource type inside a Bundle survives as JSON")
    func unknownResourceInBundle() throws {
        let json = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"FutureThing","id":"1","x":[1.50,{"y":null}]}}]}"#
        let bundle = try Bundle(fhirJSON: json)
        let proxy = try #require(bundle.entry?.first?.resource)
        guard case .unrecognized(let unknown) = proxy else {
            Issue.record("expected .unrecognized")
            return
        }
        #expect(unknown.resourceTypeName == "FutureThing")
        #expect(unknown.id?.string == "1")
        #expect(bundle.fhirJSONString() == json)
    }

    @Test("Codable works through Foundation's encoders for values without decimals")
    func codableThroughFoundation() throws {
        let patient = try Patient(fhirJSON: #"{"resourceType":"Patient","id":"p","active":false,"name":[{"text":"Ann"}]}"#)
        let data = try JSONEncoder().encode(patient)
        let decoded = try JSONDecoder().decode(Patient.self, from: data)
        #expect(decoded == patient)
        let proxies = try JSONDecoder().decode([ResourceProxy].self, from: JSONEncoder().encode([ResourceProxy(patient)]))
        #expect(proxies.first?.get(if: Patient.self) == patient)
    }

    @Test("models are Sendable values")
    func sendable() async throws {
        let observation = try Observation(fhirJSON: Self.observationJSON)
        let copy = await _Concurrency.Task.detached { observation }.value
        #expect(copy == observation)
    }

    @Test("a choice element beside a sibling that shares its prefix (amount[x] and amountType)")
    func choicePrefixSibling() throws {
        let json = #"{"amountQuantity":{"value":5},"amountType":{"text":"average"},"amountText":"about five"}"#
        let amount = try SubstanceAmount(fhirJSON: json)
        #expect(amount.amountType?.text?.string == "average")
        if case .quantity(let quantity) = amount.amount {
            #expect(quantity.value?.value?.text == "5")
        } else {
            Issue.record("amountQuantity not decoded")
        }
        #expect(amount.fhirJSONString() == json)
        #expect(FHIRValidator().validate(.object(JSONObject(members: [
            JSONMember(key: "resourceType", value: .string("SubstanceReferenceInformation")),
            JSONMember(key: "target", value: try JSONParser.parse(#"[{"amountQuantity":{"value":5},"amountType":{"text":"average"}}]"#)),
        ]))).isEmpty)
    }

    @Test("recursive types (Identifier.assigner → Reference.identifier) nest")
    func recursion() throws {
        let json = #"{"system":"a","assigner":{"identifier":{"system":"b","assigner":{"display":"c"}}}}"#
        let identifier = try Identifier(fhirJSON: json)
        #expect(identifier.assigner?.identifier?.assigner?.display?.string == "c")
        #expect(identifier.fhirJSONString() == json)
    }
}

@Suite("Decoding errors name the path")
struct DecodingErrorTests {
    private func error(_ json: String, options: FHIRDecodingOptions = .strict) -> FHIRDecodingError? {
        do {
            _ = try ResourceProxy(fhirJSON: json, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test("a missing required element")
    func missingRequired() {
        let failure = error(#"{"resourceType":"Observation","code":{"text":"x"}}"#)
        #expect(failure?.reason == .missingRequiredElement)
        #expect(failure?.pathDescription == "status")
    }

    @Test("a wrong JSON type deep inside, with array indexes")
    func wrongTypeDeep() {
        let failure = error(#"""
            {"resourceType":"Observation","status":"final","code":{"text":"x"},"component":[{"code":{"text":"a"}},{"code":{"coding":{"code":"b"}}}]}
            """#)
        #expect(failure?.reason == .wrongJSONType(expected: "array", found: "object"))
        #expect(failure?.pathDescription == "component[1].code.coding")
    }

    @Test("unknown members are errors when strict and dropped when lenient")
    func unknownMembers() throws {
        let json = #"{"resourceType":"Patient","active":true,"favouriteColour":"blue"}"#
        let failure = error(json)
        #expect(failure?.reason == .unknownMember)
        #expect(failure?.pathDescription == "favouriteColour")
        let lenient = try Patient(fhirJSON: json, options: .lenient)
        #expect(lenient.active?.bool == true)
        #expect(lenient.fhirJSONString() == #"{"resourceType":"Patient","active":true}"#)
    }

    @Test("two types of one choice element")
    func twoChoiceTypes() {
        let failure = error(#"{"resourceType":"Observation","status":"final","code":{"text":"x"},"valueString":"a","valueBoolean":true}"#)
        #expect(failure?.reason == .multipleChoiceTypes(["valueBoolean", "valueString"]))
    }

    @Test("a resourceType that does not match the type asked for")
    func resourceTypeMismatch() {
        #expect(throws: FHIRDecodingError.self) { try Patient(fhirJSON: #"{"resourceType":"Observation"}"#) }
        #expect(throws: FHIRDecodingError.self) { try Patient(fhirJSON: #"{"active":true}"#) }
    }

    @Test("an invalid primitive names the type and the path, not the value")
    func invalidPrimitive() {
        let failure = error(#"{"resourceType":"Patient","birthDate":"1974-13-99"}"#)
        guard case .invalidPrimitive(let primitive) = failure?.reason else {
            Issue.record("expected invalidPrimitive, got \(String(describing: failure))")
            return
        }
        #expect(primitive.type == "date")
        #expect(failure?.pathDescription == "birthDate")
        #expect(failure?.description.contains("1974") == false)
    }

    @Test("null, companion length and JSON syntax errors")
    func otherErrors() {
        #expect(error(#"{"resourceType":"Patient","active":null}"#)?.reason == .nullNotAllowed)
        #expect(error(#"{"resourceType":"Patient","name":[{"given":["a","b"],"_given":[null]}]}"#)?.reason
            == .companionLengthMismatch(values: 2, companions: 1))
        if case .invalidJSON = error(#"{"resourceType":"Patient",}"#)?.reason {} else {
            Issue.record("a trailing comma must be a JSON error")
        }
    }
}
