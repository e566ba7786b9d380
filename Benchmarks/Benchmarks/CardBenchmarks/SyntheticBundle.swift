/// A FHIR Bundle built here from made-up data (a patient and three COVID-19 immunizations), used
/// only when the shared vectors are absent (see CardFixtures.swift). No third-party example data
/// is copied into the repository.
enum SyntheticBundle {
    static var covidVaccines: String {
        let doses = [("2021-01-01", "207", "0000001"), ("2021-01-29", "207", "0000007"), ("2022-09-05", "229", "0000009")]
        let immunizations = doses.enumerated().map { index, dose in
            """
            {"fullUrl":"resource:\(index + 1)","resource":{"resourceType":"Immunization","status":"completed",\
            "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"\(dose.1)"}]},\
            "patient":{"reference":"resource:0"},"occurrenceDateTime":"\(dose.0)",\
            "performer":[{"actor":{"display":"Example Clinic"}}],"lotNumber":"\(dose.2)"}}
            """
        }
        return """
            {"resourceType":"Bundle","type":"collection","entry":[\
            {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Example","given":["Pat","Q."]}],\
            "birthDate":"1960-02-03"}},\(immunizations.joined(separator: ","))]}
            """
    }
}
