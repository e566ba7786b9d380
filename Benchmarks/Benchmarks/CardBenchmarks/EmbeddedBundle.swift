// A copy of covid-vaccines-bundle.json from smart-on-fhir/health-cards (MIT; Computational
// Health Informatics Program, Boston Children's Hospital), commit
// 5eb9aa8bca78a6ec4877db25a6e4bcb1f3d690ea, generate-examples/src/fixtures/. It is what the
// official example 00 card was issued from. Used only when the shared vectors are absent
// (see CardFixtures.swift); when they are present, the shared file is read instead.
enum EmbeddedBundle {
    static let covidVaccines = ##"""
{
  "resourceType": "Bundle",
  "id": "example-bundle-immunization-covid",
  "type": "collection",
  "entry": [
    {
      "fullUrl": "resource:0",
      "resource": {
        "resourceType": "Patient",
        "name": [
          {
            "family": "Anyperson",
            "given": [
              "John",
              "B."
            ]
          }
        ],
        "birthDate": "1951-01-20"
      }
    },
    {
      "fullUrl": "resource:1",
      "resource": {
        "resourceType": "Immunization",
        "meta": {
          "security": [
            {
              "system": "https://smarthealth.cards/ial",
              "code": "IAL1.2"
            }
          ]
        },
        "status": "completed",
        "vaccineCode": {
          "coding": [
            {
              "system": "http://hl7.org/fhir/sid/cvx",
              "code": "207"
            }
          ]
        },
        "patient": {
          "reference": "resource:0"
        },
        "occurrenceDateTime": "2021-01-01",
        "performer": [
          {
            "actor": {
              "display": "ABC General Hospital"
            }
          }
        ],
        "lotNumber": "0000001"
      }
    },
    {
      "fullUrl": "resource:2",
      "resource": {
        "resourceType": "Immunization",
        "meta": {
          "security": [
            {
              "system": "https://smarthealth.cards/ial",
              "code": "IAL1.2"
            }
          ]
        },
        "status": "completed",
        "vaccineCode": {
          "coding": [
            {
              "system": "http://hl7.org/fhir/sid/cvx",
              "code": "207"
            }
          ]
        },
        "patient": {
          "reference": "resource:0"
        },
        "occurrenceDateTime": "2021-01-29",
        "performer": [
          {
            "actor": {
              "display": "ABC General Hospital"
            }
          }
        ],
        "lotNumber": "0000007"
      }
    },
    {
      "fullUrl": "resource:3",
      "resource": {
        "resourceType": "Immunization",
        "meta": {
          "security": [
            {
              "system": "https://smarthealth.cards/ial",
              "code": "IAL1.2"
            }
          ]
        },
        "status": "completed",
        "vaccineCode": {
          "coding": [
            {
              "system": "http://hl7.org/fhir/sid/cvx",
              "code": "229"
            }
          ]
        },
        "patient": {
          "reference": "resource:0"
        },
        "occurrenceDateTime": "2022-09-05",
        "performer": [
          {
            "actor": {
              "display": "ABC General Hospital"
            }
          }
        ],
        "lotNumber": "0000001"
      }
    }
  ]
}
"""##
}
