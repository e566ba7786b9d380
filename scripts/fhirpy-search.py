#!/usr/bin/env python3
"""FHIR search by Python `fhirpy` (a widely used FHIR client) against the FhirBlocks server,
with a bearer token the test obtained: a code and date-range search sorted by date, read
page by page through the server's `next` links (fetch_all), the total (count), a search of
another patient's compartment, the own patient's $everything, that of another (refused), and an unknown parameter
under `Prefer: handling=strict` (refused). Prints one JSON object.

    fhirpy-search.py FHIR_BASE TOKEN OWN_PATIENT OTHER_PATIENT
"""
import json
import sys

from fhirpy import SyncFHIRClient


def main():
    base, token, own, other = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    client = SyncFHIRClient(base, authorization=f"Bearer {token}")
    search = (client.resources("Observation")
              .search(code="http://loinc.org|8867-4", date=["ge2020-01", "lt2021"])
              .sort("date").limit(2))
    pages = [[entry.id for entry in search.fetch()]]
    result = {
        "ids": [resource.id for resource in search.fetch_all()],
        "first_page": pages[0],
        "total": search.count(),
        "outside": [resource.id for resource in client.resources("Observation").search(patient=other).fetch_all()],
    }
    everything = client.reference("Patient", own).execute("$everything", method="get")
    result["everything"] = sorted(entry["resource"]["id"] for entry in everything.get("entry", []))
    try:
        client.reference("Patient", other).execute("$everything", method="get")
        result["everything_outside"] = "allowed"
    except Exception as error:  # fhirpy raises ResourceNotFound for 404
        result["everything_outside"] = type(error).__name__
    strict = SyncFHIRClient(base, authorization=f"Bearer {token}", extra_headers={"Prefer": "handling=strict"})
    try:
        strict.resources("Observation").search(colour="red").fetch()
        result["strict_unknown"] = "allowed"
    except Exception as error:  # fhirpy raises OperationOutcome for a 400
        result["strict_unknown"] = type(error).__name__
    print(json.dumps(result))


if __name__ == "__main__":
    main()
